package web_test

// These tests hold issue 31's point 6: a page of another site cannot make
// its visitors' browsers upload, delete or withdraw (the upload form took
// urlencoded and multipart posts with Origin: evil.example and
// Sec-Fetch-Site: cross-site, 201), while the CLI's posts, which carry
// neither header, and the embed's cross-origin reads keep working.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web"
)

// browserFrom returns the headers a browser sends with a request made by a
// page of origin to the app at http://example.com: site is its
// Sec-Fetch-Site, "" for a browser too old to send one.
func browserFrom(origin, site string) []string {
	h := []string{"Origin", origin}
	if site != "" {
		h = append(h, "Sec-Fetch-Site", site)
	}
	return h
}

// send serves one request with the given body, content type and headers.
func (s *server) send(method, target, contentType string, body []byte, header []string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, bytes.NewReader(body)) // Host: example.com
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

func TestCrossSiteRefused(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 1000})
	doc := uploadDoc(t, 1)
	form := formPost(t, doc)
	var multipartBody bytes.Buffer
	multipartBody.ReadFrom(form.Body)
	urlencoded := []byte(url.Values{"document": {string(doc)}}.Encode())
	stored := s.upload(t, uploadDoc(t, 2), http.StatusCreated)
	obs := gridObservation(t, "moe", "moe-qwen3-30b-a3b", "4096_4_0_f16_f16_1_512_0", 0)
	requests := []struct {
		what, method, target, contentType string
		body                              []byte
	}{
		{"the upload form, multipart", http.MethodPost, "/calibrations", form.Header.Get("Content-Type"), multipartBody.Bytes()},
		{"the upload form, urlencoded", http.MethodPost, "/calibrations", "application/x-www-form-urlencoded", urlencoded},
		{"the withdrawal form", http.MethodPost, "/calibrations/withdraw", "application/x-www-form-urlencoded",
			[]byte("id=" + stored.ID + "&token=" + stored.Token)},
		{"an upload", http.MethodPost, "/api/uploads", "application/json", doc},
		{"an upload sent as text", http.MethodPost, "/api/uploads", "text/plain", doc},
		{"a deletion", http.MethodDelete, "/api/uploads/" + stored.ID + "?token=" + stored.Token, "", nil},
		{"an observation", http.MethodPost, "/api/observations", "application/json", obs},
		{"an observation's deletion", http.MethodDelete, "/api/observations/x?token=y", "", nil},
	}
	for _, from := range [][]string{
		browserFrom("https://evil.example", "cross-site"),
		browserFrom("https://evil.example", "same-site"),
		browserFrom("https://evil.example", ""), // a browser without Sec-Fetch-Site
		browserFrom("null", ""),                 // a sandboxed frame
	} {
		for _, r := range requests {
			rec := s.send(r.method, r.target, r.contentType, r.body, from)
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "cross-site request refused") {
				t.Errorf("%s from %v = %d %.200s, want 403", r.what, from, rec.Code, rec.Body)
			}
		}
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil); strings.Count(rec.Body.String(), "\n") != 1 {
		n := strings.Count(rec.Body.String(), "\n")
		t.Errorf("%d uploads stored after the cross-site posts, want the 1 stored before", n)
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/uploads/"+stored.ID, nil); rec.Code != http.StatusOK {
		t.Errorf("the upload was withdrawn by a cross-site post: GET = %d", rec.Code)
	}
}

// TestSameSiteAllowed: the page's own forms, the CLI (no Origin, no
// Sec-Fetch-Site), and the embed's and web component's cross-origin reads
// and plans all still work.
func TestSameSiteAllowed(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 1000})
	form := formPost(t, uploadDoc(t, 1))
	var body bytes.Buffer
	body.ReadFrom(form.Body)
	for i, from := range [][]string{
		browserFrom("http://example.com", "same-origin"),
		browserFrom("http://example.com", ""), // an older browser: Origin is the host
		nil,                                   // the CLI
	} {
		if i == 0 {
			if rec := s.send(http.MethodPost, "/calibrations", form.Header.Get("Content-Type"), body.Bytes(), from); rec.Code != http.StatusCreated {
				t.Errorf("the upload form from the page = %d, want 201", rec.Code)
			}
			continue
		}
		if rec := s.send(http.MethodPost, "/api/uploads", "application/json", uploadDoc(t, 1+i), from); rec.Code != http.StatusCreated {
			t.Errorf("POST /api/uploads with %v = %d %s, want 201", from, rec.Code, rec.Body)
		}
	}
	embed := browserFrom("https://docs.example", "cross-site")
	for _, target := range []string{"/api/models", "/api/calibrations", "/api/plan?" + b1Query, "/api/community"} {
		if rec := s.send(http.MethodGet, target, "", nil, embed); rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("a cross-origin GET %s = %d, CORS %q", target, rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
		}
	}
	plan := s.send(http.MethodGet, "/api/plan?"+b1Query, "", nil, nil)
	var doc struct{ Input json.RawMessage }
	if err := json.Unmarshal(plan.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if rec := s.send(http.MethodPost, "/api/plan", "application/json", doc.Input, embed); rec.Code != http.StatusOK {
		t.Errorf("a cross-origin POST /api/plan = %d %.300s, want 200: it changes nothing", rec.Code, rec.Body)
	}
}
