package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
	"github.com/vramplan/vramplan/web/store/storetest"
)

// reads is an SQLite store that records the queries of its Uploads.
type reads struct {
	*sqlite.Store
	mu sync.Mutex
	qs []store.Query
}

func (r *reads) Uploads(ctx context.Context, q store.Query) ([]store.Upload, error) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
	return r.Store.Uploads(ctx, q)
}

// TestExportStreamed checks that /api/uploads.jsonl holds a bounded number
// of uploads in memory whatever the store's size: it reads the store a
// page of at most 100 uploads at a time, from the last sequence number it
// sent, and still sends every upload once, in order; ?after and ?limit
// page it for a client.
func TestExportStreamed(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "uploads.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 1234
	for i := range n {
		u := storetest.Upload(i, "g")
		if i%10 == 9 {
			u.Status = store.StatusHeld
		}
		if _, _, err := st.Put(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	r := &reads{Store: st}
	s := &server{h: web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: r})}
	for _, tt := range []struct {
		url        string
		first, num int64 // the first seq sent, and how many
	}{
		{"/api/uploads.jsonl", 1, n - n/10},
		{"/api/uploads.jsonl?status=held", 10, n / 10},
		{"/api/uploads.jsonl?after=500", 501, 661}, // 734 uploads, 73 of them held
		{"/api/uploads.jsonl?after=500&limit=250", 501, 250},
		{"/api/uploads.jsonl?limit=1", 1, 1},
		{"/api/uploads.jsonl?after=1234", 0, 0},
	} {
		r.qs = nil
		rec, _ := s.do(t, http.MethodGet, tt.url, nil)
		seqs := exportedSeqs(t, rec.Body.String())
		if rec.Code != http.StatusOK || int64(len(seqs)) != tt.num || len(seqs) > 0 && seqs[0] != tt.first {
			t.Errorf("GET %s = %d, %d uploads from seq %v; want 200, %d from %d", tt.url, rec.Code, len(seqs), seqs[:min(1, len(seqs))], tt.num, tt.first)
		}
		for i := 1; i < len(seqs); i++ {
			if seqs[i] <= seqs[i-1] {
				t.Fatalf("GET %s: seq %d after %d", tt.url, seqs[i], seqs[i-1])
			}
		}
		for _, q := range r.qs {
			if q.Limit < 1 || q.Limit > 100 {
				t.Errorf("GET %s read the store %d uploads at a time, want 1 to 100", tt.url, q.Limit)
			}
		}
	}
	for _, bad := range []string{"?after=x", "?after=-1", "?limit=0", "?limit=many", "?status=hled", "?status=pending"} {
		if rec, a := s.do(t, http.MethodGet, "/api/uploads.jsonl"+bad, nil); rec.Code != http.StatusBadRequest || a.Field == "" {
			t.Errorf("GET /api/uploads.jsonl%s = %d, field %q; want 400 naming the field", bad, rec.Code, a.Field)
		}
	}
}

// exportedSeqs returns the sequence numbers of an export's lines.
func exportedSeqs(t *testing.T, body string) []int64 {
	t.Helper()
	var seqs []int64
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if l == "" {
			continue
		}
		var u struct{ Seq int64 }
		if err := json.Unmarshal([]byte(l), &u); err != nil {
			t.Fatalf("a line that is not an upload: %q", l)
		}
		seqs = append(seqs, u.Seq)
	}
	return seqs
}
