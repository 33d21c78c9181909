package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// uploadDoc returns the n-th distinct upload: the measured H200 file with
// its context moved by n × 4 KiB.
func uploadDoc(t testing.TB, n int) []byte {
	t.Helper()
	c, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	c.Context += planner.Bytes(n) * 4096
	c.Provenance.Runs, c.Provenance.Notes = 3, fmt.Sprintf("upload %d", n)
	return calibrations.Format(&c)
}

type server struct {
	h   http.Handler
	now time.Time
	st  *sqlite.Store
}

func newServer(t testing.TB, opts web.UploadOptions) *server {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "uploads.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &server{now: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), st: st}
	if opts.Now == nil {
		opts.Now = func() time.Time { return s.now }
	}
	if opts.ClientKey == nil {
		opts.ClientKey = st.ClientKey() // as vramplan serve wires it
	}
	s.h = web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: st, Uploads: opts})
	return s
}

type answer struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Group     string `json:"group"`
	Duplicate bool   `json:"duplicate"`
	Token     string `json:"deletion_token"`
	Field     string `json:"field"`
	Error     string `json:"error"`
	Reasons   []struct {
		Field  string `json:"field"`
		Reason string `json:"reason"`
	} `json:"reasons"`
}

func (s *server) do(t testing.TB, method, url string, body []byte, header ...string) (*httptest.ResponseRecorder, answer) {
	t.Helper()
	req := httptest.NewRequest(method, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	var a answer
	json.Unmarshal(rec.Body.Bytes(), &a)
	return rec, a
}

func (s *server) upload(t testing.TB, doc []byte, want int) answer {
	t.Helper()
	return s.uploadFrom(t, "", doc, want)
}

// uploadFrom uploads doc from the client address addr ("" for
// httptest's), checking the status.
func (s *server) uploadFrom(t testing.TB, addr string, doc []byte, want int) answer {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/uploads", bytes.NewReader(doc))
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.RemoteAddr = addr + ":4321"
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	if rec.Code != want {
		t.Fatalf("POST /api/uploads from %s = %d, want %d\n%s", addr, rec.Code, want, rec.Body)
	}
	var a answer
	json.Unmarshal(rec.Body.Bytes(), &a)
	return a
}

// client is the address of the n-th of distinct clients.
func client(n int) string { return fmt.Sprintf("198.51.100.%d", n+1) }

func TestUploadAccepted(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	a := s.upload(t, uploadDoc(t, 1), http.StatusCreated)
	if a.Status != "accepted" || a.Group != "h200-140gib-linux-r580-cuda13.0" || a.Token == "" || a.ID == "" {
		t.Fatalf("answer = %+v", a)
	}
	// The same content, however formatted, is answered with the same id.
	var v any
	json.Unmarshal(uploadDoc(t, 1), &v)
	compact, _ := json.Marshal(v)
	dup := s.upload(t, compact, http.StatusOK)
	if !dup.Duplicate || dup.ID != a.ID || dup.Token != "" {
		t.Errorf("duplicate answer = %+v, want id %s, no token", dup, a.ID)
	}
	rec, _ := s.do(t, http.MethodGet, "/api/uploads/"+a.ID, nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"context_bytes"`) || strings.Contains(rec.Body.String(), "client") {
		t.Errorf("GET upload = %d %s", rec.Code, rec.Body)
	}
}

func TestUploadRejected(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	for _, tt := range []struct {
		name   string
		body   []byte
		ctype  string
		status int
		field  string
	}{
		{"unknown field", bytes.Replace(uploadDoc(t, 1), []byte(`"gpu":`), []byte(`"colour": 1, "gpu":`), 1), "", 422, "colour"},
		{"schema", bytes.Replace(uploadDoc(t, 1), []byte("calibration/v1"), []byte("calibration/v9"), 1), "", 422, "schema"},
		{"context over total", bytes.Replace(uploadDoc(t, 1), []byte(`"context_bytes": 552407040`), []byte(`"context_bytes": 999999999999`), 1), "", 422, "context_bytes"},
		{"too large", bytes.Repeat([]byte(" "), 64<<10+1), "", 413, ""},
		{"not json", []byte("gpu=h200"), "text/plain", 415, ""},
		{"empty", nil, "", 422, ""},
	} {
		header := []string{}
		if tt.ctype != "" {
			header = []string{"Content-Type", tt.ctype}
		}
		rec, a := s.do(t, http.MethodPost, "/api/uploads", tt.body, header...)
		if rec.Code != tt.status || a.Field != tt.field {
			t.Errorf("%s: %d field %q, want %d field %q\n%s", tt.name, rec.Code, a.Field, tt.status, tt.field, rec.Body)
		}
		if tt.status == 422 && (a.Status != "rejected" || len(a.Reasons) == 0) {
			t.Errorf("%s: answer %+v, want rejected with reasons", tt.name, a)
		}
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil); rec.Body.Len() != 0 {
		t.Errorf("rejected uploads were stored: %s", rec.Body)
	}
}

func TestUploadHeld(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	for n := range 3 {
		s.uploadFrom(t, client(n), uploadDoc(t, n), http.StatusCreated)
	}
	for _, tc := range []struct {
		name string
		ctx  planner.Bytes
		want string
	}{
		{"far from the prior", 3 * planner.GiB, "departs from"},
		{"within the prior, far from the group", 552402944 + 150*planner.MiB, "from the group's median"},
	} {
		c, _ := calibrations.Parse(uploadDoc(t, 9))
		c.Context = tc.ctx
		a := s.uploadFrom(t, client(9), calibrations.Format(&c), http.StatusCreated)
		if a.Status != "held" || len(a.Reasons) == 0 || !strings.Contains(a.Reasons[0].Reason, "context_bytes") ||
			!strings.Contains(a.Reasons[0].Reason, tc.want) {
			t.Errorf("an upload %s: %+v, want held (%q)", tc.name, a, tc.want)
		}
	}
	var gs []struct {
		Group       string               `json:"group"`
		Status      string               `json:"status"`
		Accepted    int                  `json:"accepted"`
		Held        int                  `json:"held"`
		Calibration *planner.Calibration `json:"calibration"`
	}
	rec, _ := s.do(t, http.MethodGet, "/api/community", nil)
	json.Unmarshal(rec.Body.Bytes(), &gs)
	if len(gs) != 1 || gs[0].Status != "listed" || gs[0].Accepted != 3 || gs[0].Held != 2 || gs[0].Calibration == nil {
		t.Fatalf("GET /api/community = %s", rec.Body)
	}
	if got, want := gs[0].Calibration.Context, planner.Bytes(552402944+4096); got != want {
		t.Errorf("community context = %d, want the median %d", got, want)
	}
}

func TestUploadDelete(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	a := s.upload(t, uploadDoc(t, 1), http.StatusCreated)
	url := "/api/uploads/" + a.ID
	for _, tt := range []struct {
		header []string
		status int
	}{
		{nil, http.StatusUnauthorized},
		{[]string{"Authorization", "Bearer wrong"}, http.StatusForbidden},
		{[]string{"Authorization", "Bearer " + a.Token}, http.StatusNoContent},
		{[]string{"Authorization", "Bearer " + a.Token}, http.StatusNotFound},
	} {
		if rec, _ := s.do(t, http.MethodDelete, url, nil, tt.header...); rec.Code != tt.status {
			t.Errorf("DELETE %v = %d, want %d", tt.header, rec.Code, tt.status)
		}
	}
	if rec, _ := s.do(t, http.MethodGet, url, nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET a deleted upload = %d", rec.Code)
	}
	// Withdrawn, it can be uploaded again, as new.
	s.upload(t, uploadDoc(t, 1), http.StatusCreated)
}

func TestUploadRateLimits(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 3, DailyCap: 5})
	for n := range 3 {
		s.upload(t, uploadDoc(t, n), http.StatusCreated)
	}
	rec, _ := s.do(t, http.MethodPost, "/api/uploads", uploadDoc(t, 3))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1800" {
		t.Fatalf("4th upload in an hour = %d, Retry-After %q; want 429, 1800", rec.Code, rec.Header().Get("Retry-After"))
	}
	// Another address has its own hour, until the day's cap.
	other := func() int {
		req := httptest.NewRequest(http.MethodPost, "/api/uploads", bytes.NewReader(uploadDoc(t, 10+int(s.now.Unix()%100))))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = "192.0.2.7:5555"
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		s.now = s.now.Add(time.Second)
		return rec.Code
	}
	// The refused 4th upload did not reach the day's count: 3 are counted.
	if got := []int{other(), other(), other()}; got[0] != 201 || got[1] != 201 || got[2] != 429 {
		t.Errorf("another address, day cap 5 with 3 counted: %v, want [201 201 429]", got)
	}
	s.now = s.now.Add(24 * time.Hour)
	s.upload(t, uploadDoc(t, 4), http.StatusCreated)
}

func TestUploadsExport(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	ids := map[string]bool{}
	for n := range 5 {
		ids[s.upload(t, uploadDoc(t, n), http.StatusCreated).ID] = true
	}
	rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil)
	lines := strings.Split(strings.TrimSpace(rec.Body.String()), "\n")
	if rec.Code != 200 || len(lines) != 5 || rec.Header().Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("GET /api/uploads.jsonl = %d, %d lines", rec.Code, len(lines))
	}
	for _, l := range lines {
		var u struct {
			ID          string              `json:"id"`
			Calibration planner.Calibration `json:"calibration"`
		}
		if err := json.Unmarshal([]byte(l), &u); err != nil || !ids[u.ID] || u.Calibration.GPU != "NVIDIA H200" {
			t.Errorf("line %s: %v", l, err)
		}
		if strings.Contains(l, "token") || strings.Contains(l, "client") {
			t.Errorf("an exported line carries a private field: %s", l)
		}
	}
}

// TestUploadPicker checks a community calibration joins the table the
// pages and the API serve, labelled, after the measured ones.
func TestUploadPicker(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	var a answer
	for n := range community.Quorum {
		a = s.uploadFrom(t, client(n), uploadDoc(t, n), http.StatusCreated)
	}
	rec, _ := s.do(t, http.MethodGet, "/api/calibrations", nil)
	var cals []planner.Calibration
	json.Unmarshal(rec.Body.Bytes(), &cals)
	var kinds []string
	for _, c := range cals {
		kinds = append(kinds, c.Kind())
	}
	if cals[0].ID != "h200-linux-cuda13.0" || !strings.Contains(strings.Join(kinds, " "), "measured community") {
		t.Errorf("table order = %v", kinds)
	}
	rec, _ = s.do(t, http.MethodGet, "/?gpu="+a.Group, nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "community: 3 uploads,") {
		t.Errorf("the page on the community calibration: %d", rec.Code)
	}
}

// TestUploadsConcurrent has 32 clients send 200 uploads each, a quarter of
// them another client's, over real HTTP: every upload is stored once.
func TestUploadsConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("6,400 uploads")
	}
	s := newServer(t, web.UploadOptions{PerClientHour: 1 << 20, DailyCap: 1 << 20})
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	const clients, each = 32, 200
	var mu sync.Mutex
	created, seen := map[string]int{}, map[string]bool{}
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Go(func() {
			for i := range each {
				n := cl*each + i
				if i%4 == 3 {
					n = ((cl+1)%clients)*each + i - 1 // the next client's
				}
				resp, err := http.Post(srv.URL+"/api/uploads", "application/json", bytes.NewReader(uploadDoc(t, n)))
				if err != nil {
					t.Error(err)
					return
				}
				var a answer
				json.NewDecoder(resp.Body).Decode(&a)
				resp.Body.Close()
				mu.Lock()
				seen[a.ID] = true
				if resp.StatusCode == http.StatusCreated {
					created[a.ID]++
				} else if resp.StatusCode != http.StatusOK {
					t.Errorf("upload %d: %d %s", n, resp.StatusCode, a.Error)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil)
	stored := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(rec.Body.String()), "\n") {
		var u struct{ ID string }
		json.Unmarshal([]byte(l), &u)
		stored[u.ID]++
	}
	if len(stored) != len(seen) || len(created) != len(seen) {
		t.Fatalf("%d ids answered, %d created, %d stored", len(seen), len(created), len(stored))
	}
	for id, n := range created {
		if n != 1 || stored[id] != 1 {
			t.Errorf("upload %s: created %d times, stored %d times", id, n, stored[id])
		}
	}
}
