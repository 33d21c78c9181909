package web_test

// These tests hold the web findings of issue 13 (a red-team run against
// `vramplan serve`): bounded work per request, limits and headers.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web"
)

// hostileBody is the A4.3 example with groups one-layer sliding groups of
// windows distinct windows and every knob on: its failure report searches
// levers and combinations.
func hostileBody(t *testing.T, groups, windows int) []byte {
	t.Helper()
	data, err := os.ReadFile("../planner/testdata/golden/a43-example.input.json")
	if err != nil {
		t.Fatal(err)
	}
	var in planner.Input
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	in.Model.Layers = make([]planner.LayerGroup, groups)
	for i := range in.Model.Layers {
		in.Model.Layers[i] = planner.LayerGroup{Count: 1, Layer: planner.Layer{Kind: planner.LayerSliding,
			KVHeads: 8, KeyDim: 128, ValueDim: 128, Window: 1024 + i%windows}}
	}
	in.Features = planner.Features{WeightCache: planner.WeightCacheFP16, SpecDecodeK: 8, CUDAGraphs: true,
		ResidualRing: 4096, EagerModuleLoading: true}
	in.Limits = planner.Limits{MaxBatch: 256, MaxSeqLen: 131072, MaxPrefillTokens: 8192, BlockTokens: 64}
	in.Budget = 22800 * planner.MiB
	body, _ := json.Marshal(in)
	return body
}

func post(h http.Handler, ctx context.Context, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/plan", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestPlanStructureRefused: 8,192 distinct windows (the 705 KB body that
// took 9.9 s) is a 400 naming the field, answered before any planning, and
// so are 4,096 groups with a window each.
func TestPlanStructureRefused(t *testing.T) {
	for _, tc := range []struct {
		groups, windows int
		field           string
	}{{8192, 8192, "model.layers"}, {4096, 4096, "model.layers[64].window"}} {
		rec := post(handler(), context.Background(), hostileBody(t, tc.groups, tc.windows))
		var e struct{ Error, Field string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || e.Field != tc.field {
			t.Errorf("POST /api/plan with %d groups of %d windows = %d %+v, want 400 naming %s", tc.groups, tc.windows, rec.Code, e, tc.field)
		}
	}
	if rec := post(handler(), context.Background(), hostileBody(t, 64, 64)); rec.Code != http.StatusOK {
		t.Errorf("POST /api/plan with 64 windows = %d %s, want 200", rec.Code, rec.Body)
	}
}

// TestPlanStopsWhenCancelled: a request whose client has gone plans
// nothing and answers no plan.
func TestPlanStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := post(handler(), ctx, hostileBody(t, 64, 64))
	if rec.Code != 499 || rec.Body.Len() != 0 {
		t.Errorf("POST /api/plan from a gone client = %d with %d bytes, want 499 and no body", rec.Code, rec.Body.Len())
	}
}

// TestPlanDuplicateKey: a doubled key is refused, not read as its last
// value, and so is a key given again in another case, which the decoder
// matches to the same field (issue 31, point 9: {"Limits":{},"limits":{…}}
// planned).
func TestPlanDuplicateKey(t *testing.T) {
	for _, tc := range []struct{ what, old, new string }{
		{"max_batch twice", `"max_batch":`, `"max_batch":1,"max_batch":`},
		{"Limits and limits", `"limits":`, `"Limits":{},"limits":`},
		{"MAX_BATCH and max_batch", `"max_batch":`, `"MAX_BATCH":1,"max_batch":`},
	} {
		body := bytes.Replace(hostileBody(t, 4, 1), []byte(tc.old), []byte(tc.new), 1)
		if rec := post(handler(), context.Background(), body); rec.Code != http.StatusBadRequest ||
			!strings.Contains(rec.Body.String(), "appears twice") {
			t.Errorf("POST /api/plan with %s = %d %s, want 400", tc.what, rec.Code, rec.Body)
		}
	}
}

// TestBodiesCaseVariantKeys: every JSON body the app reads refuses a key
// given twice in two cases: uploads and observations as the plan API.
func TestBodiesCaseVariantKeys(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 1000})
	cal := bytes.Replace(uploadDoc(t, 1), []byte(`"gpu":`), []byte(`"GPU": "NVIDIA H100", "gpu":`), 1)
	obs := bytes.Replace(gridObservation(t, "moe", "moe-qwen3-30b-a3b", "4096_4_0_f16_f16_1_512_0", 0),
		[]byte(`"day":`), []byte(`"Day": "2026-01-01", "day":`), 1)
	for _, tc := range []struct {
		path string
		body []byte
	}{{"/api/uploads", cal}, {"/api/observations", obs}} {
		if rec, a := s.do(t, http.MethodPost, tc.path, tc.body); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(a.Error, "twice") {
			t.Errorf("POST %s with a key in two cases = %d %s, want 422", tc.path, rec.Code, rec.Body)
		}
	}
}

func do(t *testing.T, method, url string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	handler().ServeHTTP(rec, req)
	return rec
}

// TestSecurityHeaders: a CSP that lets the page's own inline script run,
// no sniffing, no referrer; / and /docs not framable, /embed framable.
func TestSecurityHeaders(t *testing.T) {
	inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	for _, tc := range []struct {
		url      string
		framable bool
	}{{"/", false}, {"/docs", false}, {"/embed", true}} {
		rec := get(t, tc.url)
		h := rec.Header()
		csp := h.Get("Content-Security-Policy")
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
			t.Errorf("GET %s: nosniff %q, Referrer-Policy %q", tc.url, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
		wantAncestors, wantXFO := "frame-ancestors 'none'", "DENY"
		if tc.framable {
			wantAncestors, wantXFO = "frame-ancestors *", ""
		}
		if !strings.Contains(csp, wantAncestors) || h.Get("X-Frame-Options") != wantXFO {
			t.Errorf("GET %s: CSP %q, X-Frame-Options %q; want %s and %q", tc.url, csp, h.Get("X-Frame-Options"), wantAncestors, wantXFO)
		}
		if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval'") || !strings.Contains(csp, "object-src 'none'") {
			t.Errorf("GET %s: CSP %q", tc.url, csp)
		}
		for _, m := range inline.FindAllSubmatch(rec.Body.Bytes(), -1) {
			sum := sha256.Sum256(m[1])
			if src := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, src) {
				t.Errorf("GET %s: an inline script's hash %s is not in the CSP; the browser would block it", tc.url, src)
			}
		}
	}
	if h := get(t, "/api/models").Header(); h.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("GET /api/models: no nosniff")
	}
}

// TestCORS: the preflight of a cross-origin POST /api/plan answers.
func TestCORS(t *testing.T) {
	rec := do(t, http.MethodOptions, "/api/plan", "Origin", "https://docs.example",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	h := rec.Header()
	if rec.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("OPTIONS /api/plan = %d %v", rec.Code, h)
	}
	for _, url := range []string{"/api/models", "/static/app.js"} {
		if rec := do(t, http.MethodOptions, url, "Origin", "https://docs.example", "Access-Control-Request-Method", "GET"); rec.Code != http.StatusNoContent ||
			rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("OPTIONS %s = %d", url, rec.Code)
		}
	}
}

// TestAPIMethods: a method a route does not take is 405, not 404.
func TestAPIMethods(t *testing.T) {
	for _, tc := range []struct{ method, url string }{{http.MethodDelete, "/api/plan"}, {http.MethodPut, "/api/plan"},
		{http.MethodPost, "/api/view"}, {http.MethodPost, "/api/models"}, {http.MethodDelete, "/api/models/qwen3-8b-q8_0"},
		{http.MethodPost, "/api/calibrations"}} {
		if rec := do(t, tc.method, tc.url); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s = %d, want 405", tc.method, tc.url, rec.Code)
		}
	}
	if rec := do(t, http.MethodGet, "/api/nosuch"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /api/nosuch = %d, want 404", rec.Code)
	}
}

// TestStaticETags: the gzip and plain bodies of a file are different
// representations and carry different ETags; each revalidates to a 304.
func TestStaticETags(t *testing.T) {
	plain := get(t, "/static/app.js")
	zipped := get(t, "/static/app.js", "Accept-Encoding", "gzip")
	pe, ze := plain.Header().Get("ETag"), zipped.Header().Get("ETag")
	if pe == "" || ze == "" || pe == ze || zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("ETags plain %q gzip %q (encoding %q), want two different tags", pe, ze, zipped.Header().Get("Content-Encoding"))
	}
	if rec := get(t, "/static/app.js", "Accept-Encoding", "gzip", "If-None-Match", ze); rec.Code != http.StatusNotModified {
		t.Errorf("gzip revalidation = %d, want 304", rec.Code)
	}
	if rec := get(t, "/static/app.js", "Accept-Encoding", "gzip", "If-None-Match", pe); rec.Code != http.StatusOK || rec.Body.Len() != zipped.Body.Len() {
		t.Errorf("gzip request with the plain tag = %d, want 200 and the gzip body", rec.Code)
	}
	if rec := get(t, "/static/app.js", "If-None-Match", pe); rec.Code != http.StatusNotModified {
		t.Errorf("plain revalidation = %d, want 304", rec.Code)
	}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// TestStaticNoCopy: serving an embedded file does not copy it per request
// (each GET of the 11 MB gguf.wasm copied it, so slow readers pinned GBs).
func TestStaticNoCopy(t *testing.T) {
	h := handler()
	size := len(get(t, "/static/app.js").Body.Bytes())
	serve := func() {
		req := httptest.NewRequest(http.MethodGet, "/static/app.js", nil)
		h.ServeHTTP(&discard{h: http.Header{}}, req)
	}
	serve()
	// Wait for warm's background encodes of the build outputs (a request
	// for one waits for its encode), so their allocations are not counted.
	for _, name := range []string{"dist/planner.wasm", "dist/gguf.wasm", "dist/wasm_exec.js"} {
		h.ServeHTTP(&discard{h: http.Header{}}, httptest.NewRequest(http.MethodGet, "/static/"+name, nil))
	}
	var before, after runtime.MemStats
	const n = 50
	runtime.ReadMemStats(&before)
	for range n {
		serve()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > uint64(size)/2 {
		t.Errorf("GET /static/app.js allocates %d bytes per request for a %d-byte file, want under half of it", per, size)
	}
}

// TestStatusPolicy: one status for one problem on every route.
func TestStatusPolicy(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int
	}{
		{b1Query, http.StatusOK},
		{"batch=-1", http.StatusBadRequest},
		{"len=lots", http.StatusBadRequest},
		{"model=nosuch", http.StatusNotFound},
		{"gpu=nosuch", http.StatusNotFound},
	} {
		for _, route := range []string{"/", "/embed", "/api/view", "/api/plan"} {
			if rec := get(t, route+"?"+tc.query); rec.Code != tc.want {
				t.Errorf("GET %s?%s = %d, want %d", route, tc.query, rec.Code, tc.want)
			}
		}
	}
}

// BenchmarkPlanWorstCase is one POST /api/plan at the planner's structure
// bounds: the slowest inputs a scan of budgets from 16 GiB to 1 PiB (×1.25
// a step) found, one with the combination search's most trials (64 groups,
// 64 windows, budget 149 GiB) and one at every bound at once (4,096 groups,
// 64 windows, 1,024 matrices), and one that no layout fits (4,096 groups,
// a budget 64 MiB over the CUDA context and library reserve), so the
// layout levers and the fewest-GPUs search run to their work bound.
// docs/benchmarks.md records its figures.
func BenchmarkPlanWorstCase(b *testing.B) {
	t := &testing.T{}
	for _, bc := range []struct {
		name             string
		groups, matrices int
		budget           planner.Bytes // 0: 64 MiB over context and library
	}{{"combination-64-groups", 64, 0, 149 * planner.GiB}, {"every-bound", 4096, 1024, 25 * planner.GiB}, {"no-layout-fits", 4096, 0, 0}} {
		var in planner.Input
		json.Unmarshal(hostileBody(t, bc.groups, 64), &in)
		for m := in.Model.Weights.Matrices; len(in.Model.Weights.Matrices) < bc.matrices; {
			in.Model.Weights.Matrices = append(in.Model.Weights.Matrices, m[len(in.Model.Weights.Matrices)%len(m)])
		}
		in.Budget = bc.budget
		if bc.budget == 0 {
			in.Budget = in.Calibration.ContextEager + in.Calibration.LibraryReserveEager + 64*planner.MiB
		}
		body, _ := json.Marshal(in)
		h := handler()
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if rec := post(h, context.Background(), body); rec.Code != http.StatusOK {
					b.Fatalf("POST /api/plan = %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
