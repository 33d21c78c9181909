package web_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/calc"
	"github.com/vramplan/vramplan/web/static"
)

// The seed's B1 case on the catalog's Qwen3-4B Q8_0, and a MoE that does
// not fit a 32 GB card at 32k tokens.
const (
	b1Query    = "model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8&block=16"
	nofitQuery = "model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768"
)

// handler is the app as `vramplan serve` wires it, made once: each app
// gzips the built wasm when it starts.
var handler = sync.OnceValue(func() http.Handler {
	return web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Static: static.FS()})
})

func get(t *testing.T, url string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	handler().ServeHTTP(rec, req)
	return rec
}

func page(t *testing.T, url string, status int) *goquery.Document {
	t.Helper()
	rec := get(t, url)
	if rec.Code != status {
		t.Fatalf("GET %s = %d, want %d\n%s", url, rec.Code, status, rec.Body)
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// testid finds the elements with a data-testid in the page, leaving out
// the lists' prototypes (templates.Protos), which are not shown.
func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Closest("template").Length() == 0
	})
}

// b1Plan is the plan of b1Query, built without the web app's query code.
func b1Plan(t *testing.T) planner.Plan {
	t.Helper()
	m, err := catalog.Lookup("qwen3-4b-instruct-2507-q8_0")
	if err != nil {
		t.Fatal(err)
	}
	cals, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Model: m, Limits: planner.Limits{MaxBatch: 8, MaxSeqLen: 4096, KVDtype: planner.KVDtypeFP8, BlockTokens: 16}}
	for _, c := range cals {
		if c.ID == "rtx5090-wsl2-cuda13.3" {
			in.Calibration = c
		}
	}
	p, err := planner.Report(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPageNumbersEqualPlan checks that the server-rendered page shows the
// plan document's figures: the same input gives the same numbers in the
// page, the API and the CLI.
func TestPageNumbersEqualPlan(t *testing.T) {
	doc := page(t, "/?"+b1Query, http.StatusOK)
	p := b1Plan(t)
	checks := map[string]int64{"total-mib": p.Total.MiB(), "budget-mib": p.Budget.MiB(), "headroom-mib": p.Headroom.MiB(),
		"max-seqs": int64(p.Capacity.MaxSeqsAtMaxLen), "max-len": int64(p.Capacity.MaxLenAtBatch)}
	for id, want := range checks {
		if got := strings.TrimSpace(testid(doc, id).Text()); got != calc.Group(want) {
			t.Errorf("[data-testid=%s] = %q, want %s", id, got, calc.Group(want))
		}
	}
	if fits, _ := testid(doc, "verdict").Attr("data-fits"); fits != "true" {
		t.Errorf("verdict data-fits = %q, want true", fits)
	}
	for _, it := range p.Items {
		got := strings.TrimSpace(testid(doc, "item-"+it.Key).Find(`[data-testid="item-mib"]`).Text())
		if got != calc.Group(it.Bytes.MiB()) {
			t.Errorf("item %s = %q MiB, want %s", it.Key, got, calc.Group(it.Bytes.MiB()))
		}
	}
	if n := testid(doc, "lever").Length(); n != 0 {
		t.Errorf("a fitting plan shows %d levers", n)
	}
}

func TestPageFailureLevers(t *testing.T) {
	doc := page(t, "/?"+nofitQuery, http.StatusOK)
	if fits, _ := testid(doc, "verdict").Attr("data-fits"); fits != "false" {
		t.Fatalf("verdict data-fits = %q, want false", fits)
	}
	levers := testid(doc, "lever")
	if levers.Length() == 0 {
		t.Fatal("no levers on a failing plan")
	}
	levers.Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		if !strings.HasPrefix(href, "?model=qwen3-coder-30b-a3b-instruct-nvfp4&") {
			t.Errorf("lever %q links to %q", s.Text(), href)
		}
	})
}

func TestPageControlsHoldState(t *testing.T) {
	doc := page(t, "/?model=gemma-3-4b-it-q4_k_m&batch=3&len=5000&kv=q8_0&vision=1&spec=2&budget=20480", http.StatusOK)
	for id, want := range map[string]string{"batch": "3", "len": "5000", "spec": "2", "budget": "20480", "model": "gemma-3-4b-it-q4_k_m"} {
		if got, _ := testid(doc, id).Attr("value"); got != want {
			t.Errorf("input %s = %q, want %q", id, got, want)
		}
	}
	if got, _ := testid(doc, "kv").Find("option[selected]").Attr("value"); got != "q8_0" {
		t.Errorf("kv selected = %q", got)
	}
	if _, ok := testid(doc, "vision").Attr("checked"); !ok {
		t.Error("vision is not checked")
	}
	for _, id := range []string{"batch-slider", "len-slider", "budget-slider"} {
		s := testid(doc, id)
		if label := doc.Find(`label[for="` + strings.TrimSuffix(id, "-slider") + `"]`); label.Length() == 0 || s.AttrOr("aria-label", "") == "" {
			t.Errorf("%s has no label", id)
		}
	}
	if got := testid(doc, "budget-mib").Text(); got != "20,480" {
		t.Errorf("budget-mib = %q, want 20,480", got)
	}
}

func TestPageErrors(t *testing.T) {
	doc := page(t, "/?len=lots", http.StatusBadRequest)
	if got := testid(doc, "error").Text(); got != `Max sequence length: "lots" is not a whole number.` {
		t.Errorf("error = %q, want it to name the length field", got)
	}
	doc = page(t, "/?model=nosuch", http.StatusNotFound)
	if !strings.Contains(testid(doc, "error").Text(), `"nosuch"`) || testid(doc, "verdict").Text() != "" {
		t.Errorf("unknown model: error %q, verdict %q; want the error and no plan", testid(doc, "error").Text(), testid(doc, "verdict").Text())
	}
	doc = page(t, "/?len=-4", http.StatusBadRequest) // one policy with /api/plan: a state the planner refuses is 400
	if got := testid(doc, "error").Text(); got != "Max sequence length: -4 is too small: it takes 1 to 134,217,728 tokens." {
		t.Errorf("len=-4: error = %q, want the length field and its range in words", got)
	}
	if got := doc.Find("head title").Text(); got != "vramplan · not planned: "+testid(doc, "error").Text() {
		t.Errorf("len=-4: title %q, want it to say why nothing is planned", got)
	}
}

func TestEmbedAndDocs(t *testing.T) {
	doc := page(t, "/embed?"+b1Query, http.StatusOK)
	if !doc.Find("body").HasClass("embed") || doc.Find("header.site").Length() != 0 {
		t.Error("/embed renders the site chrome")
	}
	doc = page(t, "/docs", http.StatusOK)
	src, _ := testid(doc, "embed-iframe").Attr("src")
	if !strings.HasPrefix(src, "/embed?model=") {
		t.Errorf("docs iframe src = %q", src)
	}
	if c := testid(doc, "component"); c.Length() != 1 || c.AttrOr("model", "") == "" || c.AttrOr("gpu", "") == "" {
		t.Error("docs has no <vram-calculator model gpu>")
	}
	if doc.Find(`script[type="module"][src="/static/vram-calculator.js"]`).Length() != 1 {
		t.Error("docs does not load the component module")
	}
}

func TestAPIPlan(t *testing.T) {
	rec := get(t, "/api/plan?"+b1Query)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/plan = %d %s", rec.Code, rec.Body)
	}
	p, err := planner.ParsePlan(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := b1Plan(t)
	if p.Total != want.Total || !p.Fits {
		t.Errorf("GET /api/plan total %d fits %v, want %d true", p.Total, p.Fits, want.Total)
	}
	body, _ := json.Marshal(p.Input)
	req := httptest.NewRequest(http.MethodPost, "/api/plan", bytes.NewReader(body))
	post := httptest.NewRecorder()
	handler().ServeHTTP(post, req)
	if post.Code != http.StatusOK || post.Body.String() != rec.Body.String() {
		t.Errorf("POST /api/plan with the GET's input = %d, and a different document", post.Code)
	}
	req = httptest.NewRequest(http.MethodPost, "/api/plan", strings.NewReader(`{"limits":{"max_seq_len":-1}}`))
	bad := httptest.NewRecorder()
	handler().ServeHTTP(bad, req)
	var e struct{ Error, Field string }
	json.Unmarshal(bad.Body.Bytes(), &e)
	if bad.Code != http.StatusBadRequest || e.Field == "" {
		t.Errorf("POST /api/plan with a bad input = %d %+v, want 400 naming a field", bad.Code, e)
	}
	if rec := get(t, "/api/plan?batch=x"); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"field":"batch"`) {
		t.Errorf("GET /api/plan?batch=x = %d %s", rec.Code, rec.Body)
	}
}

func TestAPICatalog(t *testing.T) {
	var ms []planner.Model
	var cs []planner.Calibration
	for url, v := range map[string]any{"/api/models": &ms, "/api/calibrations": &cs} {
		rec := get(t, url)
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), v) != nil {
			t.Fatalf("GET %s = %d", url, rec.Code)
		}
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s lacks CORS for embedders", url)
		}
	}
	if len(ms) != len(catalog.IDs()) || len(cs) == 0 {
		t.Errorf("%d models, %d calibrations; want the catalog's %d models", len(ms), len(cs), len(catalog.IDs()))
	}
	var m planner.Model
	rec := get(t, "/api/models/gemma-3-4b-it-q4_k_m")
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil || m.ID != "gemma-3-4b-it-q4_k_m" || m.Vision == nil {
		t.Errorf("GET /api/models/gemma-3-4b-it-q4_k_m = %d, model %q", rec.Code, m.ID)
	}
	if rec := get(t, "/api/models/nosuch"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /api/models/nosuch = %d, want 404", rec.Code)
	}
}

// TestDefaults checks what a bare URL plans: the catalog's first model on
// the first calibration by id.
func TestDefaults(t *testing.T) {
	doc := page(t, "/", http.StatusOK)
	ids := catalog.IDs()
	if got, _ := testid(doc, "model").Attr("value"); got != ids[0] {
		t.Errorf("default model = %q, want %q", got, ids[0])
	}
	if got, _ := testid(doc, "gpu").Find("option[selected]").Attr("value"); got != "h200-linux-cuda13.0" {
		t.Errorf("default gpu = %q, want h200-linux-cuda13.0", got)
	}
	if n := doc.Find("#model-list option").Length(); n != len(ids) {
		t.Errorf("the picker offers %d models, want %d", n, len(ids))
	}
}

func TestStatic(t *testing.T) {
	ggufWasm := http.StatusServiceUnavailable // until make wasm has built it
	if _, err := os.Stat("static/dist/gguf.wasm"); err == nil {
		ggufWasm = http.StatusOK
	}
	for url, want := range map[string]int{"/static/app.js": 200, "/static/style.css": 200, "/static/vram-calculator.js": 200,
		"/static/reader.js": 200, "/static/dist/gguf.wasm": ggufWasm, "/static/nope.js": 404, "/static/dist/README.md": 404,
		"/static/../web.go": 404, "/static/static.go": 404} {
		if rec := get(t, url); rec.Code != want {
			t.Errorf("GET %s = %d, want %d", url, rec.Code, want)
		}
	}
	rec := get(t, "/static/app.js", "Accept-Encoding", "gzip")
	if rec.Header().Get("Content-Encoding") != "gzip" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") {
		t.Errorf("app.js: encoding %q type %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Type"))
	}
}

// TestPlatformStatic checks an app without Deps.Static, as cmd/worker wires
// it: /static/ is not its route (Workers static assets answer there) while
// the pages and the API still are.
func TestPlatformStatic(t *testing.T) {
	h := web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All})
	for url, want := range map[string]int{"/static/app.js": 404, "/static/dist/planner.wasm": 404, "/": 200, "/api/plan?" + b1Query: 200} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
		if rec.Code != want {
			t.Errorf("GET %s = %d, want %d", url, rec.Code, want)
		}
	}
}

func TestEmptyCatalog(t *testing.T) {
	for name, models := range map[string]func() ([]planner.Model, error){
		"no models":     func() ([]planner.Model, error) { return nil, nil },
		"a broken file": func() ([]planner.Model, error) { return nil, errors.New("catalog x.json: bad") },
	} {
		h := web.New(web.Deps{Models: models, Calibrations: calibrations.All})
		for _, url := range []string{"/", "/api/models", "/api/plan"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("%s: GET %s = %d, want 503", name, url, rec.Code)
			}
		}
	}
}

// TestPageBootData checks the JSON the page carries for its script: the
// calibration table and the shown model's shape, byte for byte what the
// API answers, so the first plan in the browser needs no request. An
// unknown model boots none (TestUnresolvedState).
func TestPageBootData(t *testing.T) {
	for _, c := range []struct {
		query, model string
		status       int
	}{
		{nofitQuery, "qwen3-coder-30b-a3b-instruct-nvfp4", http.StatusOK},
	} {
		query, model := c.query, c.model
		doc := page(t, "/?"+query, c.status)
		script := doc.Find(`script#boot[type="application/json"]`)
		if script.Length() != 1 {
			t.Fatalf("%s: %d boot scripts, want 1", query, script.Length())
		}
		var boot struct {
			Calibrations json.RawMessage `json:"calibrations"`
			Model        json.RawMessage `json:"model"`
		}
		if err := json.Unmarshal([]byte(script.Text()), &boot); err != nil {
			t.Fatalf("%s: boot data: %v", query, err)
		}
		for url, got := range map[string]json.RawMessage{"/api/calibrations": boot.Calibrations, "/api/models/" + model: boot.Model} {
			if want := bytes.TrimSpace(get(t, url).Body.Bytes()); !bytes.Equal(got, want) {
				t.Errorf("%s: boot data differs from GET %s:\n%s\nwant\n%s", query, url, got, want)
			}
		}
	}
}

// TestHead checks that every route that answers GET answers HEAD with the
// same status and content type (link checkers and `curl -I` ask HEAD).
func TestHead(t *testing.T) {
	for _, url := range []string{"/?" + b1Query, "/embed", "/docs", "/api/plan?" + b1Query, "/api/view?" + b1Query,
		"/api/models", "/api/models/gemma-3-4b-it-q4_k_m", "/api/calibrations", "/static/style.css", "/api/models/nosuch"} {
		want := get(t, url)
		req := httptest.NewRequest(http.MethodHead, url, nil)
		rec := httptest.NewRecorder()
		handler().ServeHTTP(rec, req)
		if rec.Code != want.Code || rec.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("HEAD %s = %d %q, GET = %d %q", url, rec.Code, rec.Header().Get("Content-Type"),
				want.Code, want.Header().Get("Content-Type"))
		}
	}
}

// TestShortForms checks that the page and the API take what the CLI takes
// for a model and a GPU: an id in any case, or an unambiguous prefix.
func TestShortForms(t *testing.T) {
	doc := page(t, "/?model=QWEN3-4B-instruct-2507-q8&gpu=rtx5090-wsl2&batch=8&len=4096", http.StatusOK)
	q, _ := testid(doc, "calculator").Attr("data-query")
	if want := "model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096"; q != want {
		t.Errorf("short forms: the page planned %q, want %q", q, want)
	}
	if !strings.Contains(testid(doc, "subject").Text(), "RTX 5090") {
		t.Errorf("subject = %q, want it to name the RTX 5090", testid(doc, "subject").Text())
	}
	rec := get(t, "/api/plan?model=qwen3-4b-instruct-2507-q8&gpu=rtx5090-wsl2")
	var p planner.Plan
	if err := json.Unmarshal(rec.Body.Bytes(), &p); rec.Code != http.StatusOK || err != nil || p.Input.Calibration.ID != "rtx5090-wsl2-cuda13.3" {
		t.Errorf("GET /api/plan with short forms = %d, calibration %q, %v", rec.Code, p.Input.Calibration.ID, err)
	}
	rec = get(t, "/api/calibrations/RTX5090-wsl2")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"id":"rtx5090-wsl2-cuda13.3"`) {
		t.Errorf("GET /api/calibrations/<prefix> = %d %.80s", rec.Code, rec.Body)
	}
	if rec = get(t, "/api/calibrations/a1000"); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `no calibration \"a1000\"; closest: est-a100`) {
		t.Errorf("GET /api/calibrations/a1000 = %d %s", rec.Code, rec.Body)
	}
	rec = get(t, "/api/models/Qwen3-4B-instruct-2507-q8")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"id":"qwen3-4b-instruct-2507-q8_0"`) {
		t.Errorf("GET /api/models/<prefix> = %d %.80s", rec.Code, rec.Body)
	}
}

// TestUnresolvedState checks that a URL naming a GPU or model the server
// does not have, or a value it cannot read, says so and plans nothing in
// its place: no verdict, no figures, no boot model.
func TestUnresolvedState(t *testing.T) {
	for _, c := range []struct {
		query, key, words string
		status            int
	}{
		{"gpu=a1000&model=qwen3-4b-instruct-2507-q8_0", "gpu", `no calibration "a1000"; closest: `, http.StatusNotFound},
		{"model=qwen3-9b-q8_0&gpu=h200", "model", `no model "qwen3-9b-q8_0"; closest: qwen3-8b-q8_0`, http.StatusNotFound},
		{"model=qwen3-8b&gpu=h200", "model", `model "qwen3-8b" is ambiguous`, http.StatusNotFound},
		{"batch=lots", "batch", `"lots" is not a whole number`, http.StatusBadRequest},
	} {
		doc := page(t, "/?"+c.query, c.status)
		if got := testid(doc, "error").Text(); !strings.Contains(got, c.words) {
			t.Errorf("%s: error = %q, want %q", c.query, got, c.words)
		}
		if planned, _ := testid(doc, "result").Attr("data-planned"); planned != "false" || testid(doc, "verdict").Text() != "" ||
			testid(doc, "total-mib").Text() != "0" {
			t.Errorf("%s: planned=%s verdict %q total %q; want nothing planned", c.query, planned,
				testid(doc, "verdict").Text(), testid(doc, "total-mib").Text())
		}
		if script := doc.Find("script#boot").Text(); strings.Contains(script, `"model"`) {
			t.Errorf("%s: the page boots a model it did not plan", c.query)
		}
		rec := get(t, "/api/plan?"+c.query)
		var e struct{ Error, Field string }
		if json.Unmarshal(rec.Body.Bytes(), &e); rec.Code != c.status || e.Field != c.key { // one status for one problem, page and API
			t.Errorf("GET /api/plan?%s = %d field %q, want %d field %q", c.query, rec.Code, e.Field, c.status, c.key)
		}
	}
	doc := page(t, "/?gpu=a1000", http.StatusNotFound)
	if v, _ := doc.Find(`#gpu option[selected]`).Attr("value"); v != "a1000" {
		t.Errorf("gpu=a1000: the GPU picker selects %q, want the a1000 the URL names (not a GPU it did not ask for)", v)
	}
}

// TestServerOnly checks the page of a server built without the planner's
// WebAssembly (a plain go build): it loads no script, so the calculator is
// the form the server plans, and it says so; with the wasm it says nothing.
func TestServerOnly(t *testing.T) {
	bare := fstest.MapFS{"style.css": {Data: []byte("body{}")}, "app.js": {Data: []byte("//")}}
	for _, c := range []struct {
		fs         fstest.MapFS
		serverOnly bool
	}{{bare, true}, {fstest.MapFS{"dist/planner.wasm": {Data: []byte("\x00asm")}, "app.js": {Data: []byte("//")}}, false}} {
		h := web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Static: c.fs})
		for _, url := range []string{"/?" + b1Query, "/embed?" + b1Query, "/docs"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
			doc, err := goquery.NewDocumentFromReader(rec.Body)
			if err != nil || rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d, %v", url, rec.Code, err)
			}
			notice := testid(doc, "server-only")
			scripts := doc.Find(`script[src*="app.js"], script:not([src]):not([type])`).Length()
			if c.serverOnly && (notice.Length() != 1 || !strings.Contains(notice.Text(), "make wasm") || scripts != 0) {
				t.Errorf("no wasm: GET %s: notice %q, %d scripts; want the notice and no script", url, notice.Text(), scripts)
			}
			if !c.serverOnly && notice.Length() != 0 {
				t.Errorf("with the wasm: GET %s shows the server-only notice", url)
			}
		}
		if !c.serverOnly {
			continue
		}
		// The form is the calculator: its submit is a GET the server plans.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?"+strings.Replace(b1Query, "batch=8", "batch=16", 1), nil))
		doc, _ := goquery.NewDocumentFromReader(rec.Body)
		if q, _ := testid(doc, "calculator").Attr("data-query"); !strings.Contains(q, "batch=16") || testid(doc, "verdict").Text() == "" {
			t.Errorf("no wasm: the form's GET planned %q, verdict %q", q, testid(doc, "verdict").Text())
		}
		if doc.Find(`[data-testid="submit"]`).Length() != 1 {
			t.Error("no wasm: the page has no Plan button")
		}
	}
}

// TestHeadMetadata checks that every page has an icon of its own (browsers
// asked for a /favicon.ico that answered 404) and a description.
func TestHeadMetadata(t *testing.T) {
	for _, url := range []string{"/?" + b1Query, "/embed", "/docs"} {
		doc := page(t, url, http.StatusOK)
		icon, _ := doc.Find(`link[rel="icon"]`).Attr("href")
		desc, _ := doc.Find(`meta[name="description"]`).Attr("content")
		if !strings.HasPrefix(icon, "data:image/svg+xml,") || !strings.Contains(desc, "GPU memory") {
			t.Errorf("GET %s: icon %q, description %q", url, icon, desc)
		}
	}
}
