package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
)

// TestErrorShape: every error, the routes' own and echo's (no route, a
// method a route does not take, a body past the limit, an asset that is
// not there), is one JSON object with "error" and, where a field is at
// fault, "field", and nothing else; HEAD gets the status without a body.
func TestErrorShape(t *testing.T) {
	big := bytes.Repeat([]byte(" "), 9<<20)
	for _, tc := range []struct {
		method, url string
		body        []byte
		status      int
		want        string
	}{
		{"GET", "/nosuch", nil, http.StatusNotFound, `nothing is served at "/nosuch"`},
		{"GET", "/api/nosuch", nil, http.StatusNotFound, `nothing is served at "/api/nosuch"`},
		{"GET", "/static/nosuch.js", nil, http.StatusNotFound, `nothing is served at "/static/nosuch.js"`},
		{"DELETE", "/api/plan", nil, http.StatusMethodNotAllowed, `"/api/plan" does not take DELETE; it takes `},
		{"POST", "/api/view", nil, http.StatusMethodNotAllowed, `"/api/view" does not take POST; it takes `},
		{"POST", "/api/plan", big, http.StatusRequestEntityTooLarge, "more than 8 MiB"},
		{"GET", "/api/plan?model=qwen3-8b-q8_0&batch=x", nil, http.StatusBadRequest, "batch"},
		{"GET", "/api/models/nosuch", nil, http.StatusNotFound, `no model "nosuch"`},
	} {
		what := tc.method + " " + tc.url
		req := httptest.NewRequest(tc.method, tc.url, bytes.NewReader(tc.body))
		rec := httptest.NewRecorder()
		handler().ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s = %d %s, want %d", what, rec.Code, rec.Body, tc.status)
			continue
		}
		var e map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
			t.Errorf("%s: %v in %q", what, err, rec.Body)
			continue
		}
		msg, _ := e["error"].(string)
		for k := range e {
			if k != "error" && k != "field" {
				t.Errorf("%s: key %q in %s, want only error and field", what, k, rec.Body)
			}
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", what, msg, tc.want)
		}
		if tc.status == http.StatusMethodNotAllowed && rec.Header().Get("Allow") == "" {
			t.Errorf("%s: no Allow header", what)
		}
	}
	if rec := do(t, http.MethodHead, "/nosuch"); rec.Code != http.StatusNotFound || rec.Body.Len() != 0 {
		t.Errorf("HEAD /nosuch = %d with %d bytes, want 404 and no body", rec.Code, rec.Body.Len())
	}
}

// TestPlatformAssetMiss: with the assets left to the platform (Workers
// static assets), a /static/ path that reaches the app is a 404 in the same
// shape and with the same CORS header as the native server's.
func TestPlatformAssetMiss(t *testing.T) {
	h := web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/static/nosuch.js", nil))
	want := do(t, http.MethodGet, "/static/nosuch.js")
	if rec.Code != http.StatusNotFound || rec.Body.String() != want.Body.String() ||
		rec.Header().Get("Access-Control-Allow-Origin") != want.Header().Get("Access-Control-Allow-Origin") {
		t.Errorf("GET /static/nosuch.js without Static = %d %q %v, want %d %q %v", rec.Code, rec.Body, rec.Header(),
			want.Code, want.Body, want.Header())
	}
}

// TestErrorsBounded holds issue 31's point 10: an error quoting the
// request (an unknown field, a model or GPU id, an upload id, a path)
// carried 100 KB of it back. Every message and field is cut at 512 bytes,
// on both the API and the pages, and control characters come back
// escaped.
func TestErrorsBounded(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 1000})
	long := strings.Repeat("A", 100<<10)
	unknown := []byte(`{"` + long + `":1}`)
	observed := bytes.Replace(gridObservation(t, "moe", "moe-qwen3-30b-a3b", "4096_4_0_f16_f16_1_512_0", 0),
		[]byte(`"day":`), []byte(`"`+long+`": 1, "day":`), 1)
	for _, tc := range []struct {
		method, target string
		body           []byte
	}{
		{"GET", "/api/plan?model=" + long, nil},
		{"GET", "/api/plan?model=qwen3-8b-q8_0&gpu=" + long, nil},
		{"GET", "/api/plan?model=qwen3-8b-q8_0&batch=" + long, nil},
		{"POST", "/api/plan", unknown},
		{"GET", "/api/view?gpu=" + long, nil},
		{"GET", "/api/models/" + long, nil},
		{"GET", "/api/calibrations/" + long, nil},
		{"GET", "/api/uploads/" + long, nil},
		{"GET", "/api/observations/" + long, nil},
		{"POST", "/api/uploads", unknown},
		{"POST", "/api/observations", observed},
		{"GET", "/" + long, nil},
		{"PUT", "/api/plan/" + long, nil},
	} {
		rec, _ := s.do(t, tc.method, tc.target, tc.body)
		if rec.Code < 400 || rec.Body.Len() > 4<<10 {
			t.Errorf("%s %.40s… = %d with %d bytes, want an error of at most 4 KiB", tc.method, tc.target, rec.Code, rec.Body.Len())
		}
		var e struct{ Error, Field string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if len(e.Error) > 600 || len(e.Field) > 600 || !strings.Contains(e.Error, "bytes more)") && strings.Contains(e.Error, "AAAA") {
			t.Errorf("%s %.40s…: error of %d bytes, field of %d: %.100s", tc.method, tc.target, len(e.Error), len(e.Field), e.Error)
		}
	}
	for _, target := range []string{"/?model=" + long, "/embed?gpu=" + long} {
		doc := page(t, target, http.StatusNotFound)
		if msg := testid(doc, "error").Text(); len(msg) > 700 || !strings.Contains(msg, "bytes more)") {
			t.Errorf("GET %.40s…: the page's error is %d bytes: %.100s", target, len(msg), msg)
		}
	}
	rec, _ := s.do(t, "GET", "/nosuch%1b%5b31m", nil)
	if strings.Contains(rec.Body.String(), "\x1b") || !strings.Contains(rec.Body.String(), `\\x1b[31m`) {
		t.Errorf("GET /nosuch with a terminal escape = %s, want it quoted", rec.Body)
	}
}
