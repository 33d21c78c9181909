package web_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// TestUploadRejectedCounted checks that the checks running before the rate
// limits (an upload is counted and stored in one store write) changed no
// answer: a rejected upload counts against its client's hour, and past the
// limit every upload is refused with 429, a rejected one too.
func TestUploadRejectedCounted(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 2})
	bad := bytes.Replace(uploadDoc(t, 1), []byte("calibration/v1"), []byte("calibration/v9"), 1)
	s.upload(t, bad, http.StatusUnprocessableEntity)
	s.upload(t, uploadDoc(t, 1), http.StatusCreated)
	for _, doc := range [][]byte{uploadDoc(t, 2), bad, uploadDoc(t, 1)} {
		rec, a := s.do(t, http.MethodPost, "/api/uploads", doc)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || a.Error == "" || a.ID != "" {
			t.Errorf("an upload past the hour's 2 = %d, Retry-After %q, %+v; want 429 with Retry-After and no id",
				rec.Code, rec.Header().Get("Retry-After"), a)
		}
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil); bytes.Count(rec.Body.Bytes(), []byte("\n")) != 1 {
		t.Errorf("stored uploads:\n%s\nwant the one answered 201", rec.Body)
	}
}

// busy is an SQLite store whose writer's queue is always full.
type busy struct{ *sqlite.Store }

func (busy) Admit(context.Context, []store.Limit, *store.Upload) (store.Admission, error) {
	return store.Admission{Over: -1}, store.ErrBusy
}

// TestUploadStoreBusy checks the answer to an upload that the store's full
// queue refuses: 503 with Retry-After, and nothing stored.
func TestUploadStoreBusy(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "uploads.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &server{h: web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: busy{st}})}
	for _, url := range []string{"/api/uploads", "/api/observations"} {
		rec, a := s.do(t, http.MethodPost, url, uploadDoc(t, 1))
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || a.Error == "" || a.ID != "" {
			t.Errorf("POST %s to a busy store = %d, Retry-After %q, %+v; want 503, Retry-After 1 and why", url, rec.Code, rec.Header().Get("Retry-After"), a)
		}
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl", nil); rec.Body.Len() != 0 {
		t.Errorf("a refused upload was stored: %s", rec.Body)
	}
}

// gated is an SQLite store whose Admit waits for release, having said so on
// entered.
type gated struct {
	*sqlite.Store
	entered, release chan struct{}
}

func (g gated) Admit(ctx context.Context, limits []store.Limit, u *store.Upload) (store.Admission, error) {
	g.entered <- struct{}{}
	<-g.release
	return g.Store.Admit(ctx, limits, u)
}

// TestUploadSlots checks that an upload arriving while Limits.MaxUploading
// others are being stored is refused at once with 503 and Retry-After, and
// that the slot is given back.
func TestUploadSlots(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "uploads.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := gated{st, make(chan struct{}), make(chan struct{})}
	s := &server{h: web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: g, Limits: web.Limits{MaxUploading: 1}})}
	first := make(chan int)
	go func() {
		rec, _ := s.do(t, http.MethodPost, "/api/uploads", uploadDoc(t, 1))
		first <- rec.Code
	}()
	<-g.entered // the first upload holds the one slot
	rec, a := s.do(t, http.MethodPost, "/api/uploads", uploadDoc(t, 2))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || a.Error == "" {
		t.Errorf("an upload while the one slot is held = %d, Retry-After %q, %+v; want 503, Retry-After 1 and why", rec.Code, rec.Header().Get("Retry-After"), a)
	}
	close(g.release)
	if code := <-first; code != http.StatusCreated {
		t.Errorf("the upload holding the slot = %d, want 201", code)
	}
	go func() { <-g.entered }()
	s.upload(t, uploadDoc(t, 2), http.StatusCreated)
}
