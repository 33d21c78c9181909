package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/vramplan/vramplan/calibrations"
	models "github.com/vramplan/vramplan/planner/catalog"
)

const b1 = "/api/plan?model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096"

// TestPlanningSlots: with every planning slot taken, a request waits for
// one rather than plan beside them, and gives up when its client leaves.
func TestPlanningSlots(t *testing.T) {
	h, a := newApp(Deps{Models: models.All, Calibrations: calibrations.All, Limits: Limits{MaxPlanning: 1}})
	a.lim.planning <- struct{}{} // the one slot, held
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, url := range []string{b1, "/", "/api/view"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, url, nil))
		if rec.Code != statusClientClosed {
			t.Errorf("GET %s with no free slot and a gone client = %d, want %d", url, rec.Code, statusClientClosed)
		}
	}
	<-a.lim.planning
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, b1, nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET %s with the slot free = %d", b1, rec.Code)
	}
}

// TestBodyBudget: request bodies being read share one budget of bytes; a
// body past it waits, and one declared over 8 MiB is refused unread.
func TestBodyBudget(t *testing.T) {
	h, a := newApp(Deps{Models: models.All, Calibrations: calibrations.All, Limits: Limits{MaxBodyBytes: 100}})
	if !a.lim.bodies.TryAcquire(60) {
		t.Fatal("the budget is not 100 bytes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := strings.Repeat(" ", 50) + "{}"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/plan", strings.NewReader(body)))
	if rec.Code != statusClientClosed {
		t.Errorf("POST of 52 bytes with 40 left in the budget = %d, want %d (waited, then gone)", rec.Code, statusClientClosed)
	}
	a.lim.bodies.Release(60)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/plan", strings.NewReader(body)))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "max_seq_len") {
		t.Errorf("POST of an empty input with the budget free = %d %s, want 400", rec.Code, rec.Body)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/plan", strings.NewReader("{}"))
	req.ContentLength = 9 << 20
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("POST declaring 9 MiB = %d, want 413", rec.Code)
	}
}

// TestAssetWhileWarming: a request that arrives while warm is still
// encoding an asset waits for it, and never serves a half-made one (the
// first page load got an empty planner.wasm that way).
func TestAssetWhileWarming(t *testing.T) {
	data := []byte(strings.Repeat("wasm bytes ", 50_000))
	for range 50 {
		s := &assets{root: fstest.MapFS{"dist/planner.wasm": {Data: data}}}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if a := s.assetOf("dist/planner.wasm"); len(a.data) != len(data) || !a.compress || len(a.gzip) == 0 || a.gzipEtag == "" {
					t.Errorf("assetOf while warming = %d bytes, gzip %d, compress %v", len(a.data), len(a.gzip), a.compress)
				}
			})
		}
		wg.Wait()
	}
}

// TestReadBody holds readBody to io.ReadAll of the limited body, for
// bodies about the limit, with their length declared and not (chunked).
func TestReadBody(t *testing.T) {
	const max = 1000
	for _, n := range []int{0, 1, 511, 512, 513, 999, 1000, 1001, 1002, 5000} {
		body := strings.Repeat("x", n)
		for _, declared := range []bool{true, false} {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			if !declared {
				r.ContentLength = -1
			}
			got, err := readBody(r, max)
			want, _ := io.ReadAll(io.LimitReader(strings.NewReader(body), max+1))
			if err != nil || string(got) != string(want) {
				t.Errorf("readBody(%d bytes, declared %v) = %d bytes, %v; want %d", n, declared, len(got), err, len(want))
			}
		}
	}
}
