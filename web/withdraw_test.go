package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// writes is an SQLite store that counts the writes asked of it.
type writes struct {
	*sqlite.Store
	n atomic.Int64
}

func (w *writes) Hit(ctx context.Context, key string, win int64) (int64, error) {
	w.n.Add(1)
	return w.Store.Hit(ctx, key, win)
}

func (w *writes) Delete(ctx context.Context, id, tokenHash string) error {
	w.n.Add(1)
	return w.Store.Delete(ctx, id, tokenHash)
}

func (w *writes) DeleteObservation(ctx context.Context, id, tokenHash string) error {
	w.n.Add(1)
	return w.Store.DeleteObservation(ctx, id, tokenHash)
}

// TestWrongTokensLimited checks that wrong deletion tokens count against
// their client's hour as uploads do, and that past the limit a client is
// refused (429 with Retry-After) without a write, whether the id exists or
// not, while another client's right token still withdraws.
func TestWrongTokensLimited(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "uploads.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := &writes{Store: st}
	now := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	s := &server{h: web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: w,
		Uploads: web.UploadOptions{PerClientHour: 3, ClientKey: st.ClientKey(), Now: func() time.Time { return now }}})}
	a := s.upload(t, uploadDoc(t, 1), http.StatusCreated)
	o := s.observe(t, gridObservation(t, "moe", "moe-qwen3-30b-a3b", "4096_1_0_f16_f16_1_512_0", 0), http.StatusCreated)
	wrong := []string{"Authorization", "Bearer wrong"}
	for i, url := range []string{"/api/uploads/" + a.ID, "/api/observations/" + o.ID, "/api/uploads/" + a.ID} {
		if rec, _ := s.do(t, http.MethodDelete, url, nil, wrong...); rec.Code != http.StatusForbidden {
			t.Fatalf("wrong token %d, within the hour's 3: DELETE %s = %d, want 403", i+1, url, rec.Code)
		}
	}
	before := w.n.Load()
	for _, url := range []string{"/api/uploads/" + a.ID, "/api/observations/" + o.ID, "/api/uploads/nosuchid"} {
		for range 20 {
			rec, _ := s.do(t, http.MethodDelete, url, nil, wrong...)
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1800" {
				t.Fatalf("a wrong token past the hour's 3: DELETE %s = %d, Retry-After %q; want 429, 1800", url, rec.Code, rec.Header().Get("Retry-After"))
			}
		}
	}
	if n := w.n.Load() - before; n != 0 {
		t.Errorf("60 refused DELETEs made %d writes, want none", n)
	}
	req := httptest.NewRequest(http.MethodDelete, "/api/uploads/"+a.ID, nil)
	req.Header.Set("Authorization", "Bearer "+a.Token)
	req.RemoteAddr = "198.51.100.7:1"
	rec := httptest.NewRecorder()
	if s.h.ServeHTTP(rec, req); rec.Code != http.StatusNoContent {
		t.Errorf("the right token from another client = %d, want 204", rec.Code)
	}
	now = now.Add(time.Hour) // the next hour: counted afresh
	if rec, _ := s.do(t, http.MethodDelete, "/api/observations/"+o.ID, nil, wrong...); rec.Code != http.StatusForbidden {
		t.Errorf("a wrong token in the next hour = %d, want 403", rec.Code)
	}
}
