package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
)

// These tests hold what the page says of a plan to the plan: an estimated
// GPU said beside the verdict, a layout's line items per GPU, and the
// words of issue 27 (§4, §6, §12).

// TestPageEstimated: on an estimated card the verdict says so, with the
// card's uncertainty and a link to how it was estimated; a verdict on less
// headroom than that says it may not fit; the line items' badges and their
// details say estimated, not calibrated or measured; and the GPU picker's
// label says "estimated" before the platform, with no driver.
func TestPageEstimated(t *testing.T) {
	const q = "/?model=qwen3-8b-q8_0&gpu=est-rtx4090-linux&batch=0&len=4096"
	doc := page(t, q, http.StatusOK)
	est := testid(doc, "estimate")
	if _, hidden := est.Attr("hidden"); hidden || !strings.HasPrefix(testid(doc, "estimate-text").Text(),
		"Estimated, not measured: est-rtx4090-linux copies its figures from a measured card, and this card may leave up to 795 MiB less than planned.") {
		t.Errorf("estimate %q (hidden %v), want the card's uncertainty beside the verdict", est.Text(), hidden)
	}
	if !strings.HasSuffix(testid(doc, "estimate-text").Text(), "is less than that: it may not fit.") {
		t.Errorf("estimate %q: batch 0 leaves less headroom than 795 MiB, want it said", testid(doc, "estimate-text").Text())
	}
	if href, _ := testid(doc, "estimate-link").Attr("href"); href != "/calibrations#est-rtx4090-linux" {
		t.Errorf("estimate link %q", href)
	}
	row := testid(page(t, q+"&engine=llama.cpp", http.StatusOK), "item-cuda_context") // its detail said "measured: est-…"
	badge, detail := strings.TrimSpace(row.Find(".tag").Text()), row.Find("th").AttrOr("title", "")
	if badge != "estimated" || strings.Contains(detail, "measured: est-") || !strings.Contains(detail, "estimated: est-rtx4090-linux") {
		t.Errorf("context row: badge %q, detail %q; want estimated", badge, detail)
	}
	label := doc.Find(`#gpu option[value="est-rtx4090-linux"]`).Text()
	if label != "NVIDIA GeForce RTX 4090 · estimated · linux" {
		t.Errorf("picker label %q, want the kind before the platform and no driver", label)
	}
	measured := page(t, "/?model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&len=4096", http.StatusOK)
	if _, hidden := testid(measured, "estimate").Attr("hidden"); !hidden || testid(measured, "estimate-text").Text() != "" {
		t.Error("a measured GPU's plan says it is estimated")
	}
	cal := page(t, "/calibrations", http.StatusOK)
	r := cal.Find("tr#est-rtx4090-linux")
	if got := r.Find(`[data-testid="cal-driver"]`).Text(); strings.Contains(got, "580.159.04") || !strings.Contains(got, "no driver measured") {
		t.Errorf("estimated row's driver line %q: want no driver of the measured card's", got)
	}
	if got := r.Find(`[data-testid="cal-uncertainty"]`).Text(); !strings.HasPrefix(got, "It may leave up to 795 MiB less") {
		t.Errorf("estimated row's uncertainty %q", got)
	}
}

// TestOneInputOnePlan plans one input on every surface that takes a query
// (GET /api/plan, GET /api/view, the page): vLLM's defaults where the
// state leaves the batch out, the binding rank's line items per GPU, and
// the same launch command and activation estimate. The CLI and the
// browser's wasm are held to the same plan by web/e2e/oneplan.test.mjs.
func TestOneInputOnePlan(t *testing.T) {
	const q = "model=llama-3.3-70b-instruct-fp8&gpu=est-h100-sxm-linux&engine=vllm&tp=2&len=16384"
	var p planner.Plan
	if err := json.Unmarshal(get(t, "/api/plan?"+q).Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	m, _ := catalog.Lookup("llama-3.3-70b-instruct-fp8")
	c, _ := calibrations.Lookup("est-h100-sxm-linux")
	cli := planner.Input{Model: m, Calibration: c, Limits: planner.Limits{MaxSeqLen: 16384}, // vramplan plan's flags, --max-batch left out
		Serving: planner.Serving{Engine: planner.EngineVLLM}, Parallel: planner.Parallel{Tensor: 2}}
	want, err := planner.Report(cli)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.JSON()) != string(want.JSON()) {
		t.Fatalf("GET /api/plan?%s differs from the CLI's plan of the same flags", q)
	}
	b, _ := want.RankPlanOf(want.Layout.Binding)
	doc := page(t, "/?"+q, http.StatusOK)
	for _, it := range b.Items {
		if got := testid(doc, "item-"+it.Key).Find(`[data-testid="item-mib"]`).Text(); got != calc.Group(it.Bytes.MiB()) {
			t.Errorf("item %s = %q MiB, want one GPU's %s", it.Key, got, calc.Group(it.Bytes.MiB()))
		}
	}
	if got := doc.Find(`.items caption [data-testid="kv"]`).Text(); !strings.HasPrefix(got, calc.Group(b.KV.Blocks)+" blocks of 16 tokens") {
		t.Errorf("KV %q, want one GPU's %d blocks", got, b.KV.Blocks)
	}
	if got := testid(doc, "items-caption").Text(); got != "Line items of one GPU, the binding rank 0" {
		t.Errorf("items caption %q", got)
	}
	if got := testid(doc, "launch-command").Text(); got != b.Engine.Launch || !strings.Contains(got, " --max-num-seqs 1024 ") {
		t.Errorf("launch %q, want the CLI's %q, with vLLM's default --max-num-seqs", got, b.Engine.Launch)
	}
	if got := testid(doc, "rank-weights").Text(); got != "weights 34,646 MiB (33.8 GiB) on each of its GPUs" {
		t.Errorf("rank weights %q", got)
	}
	var v calc.View
	if err := json.Unmarshal(get(t, "/api/view?"+q).Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.TotalMiB != want.Total.MiB() || len(v.Items) != len(b.Items) || v.Items[1].MiB != b.Items[1].Bytes.MiB() {
		t.Errorf("GET /api/view: total %d, items %+v; want the plan's", v.TotalMiB, v.Items)
	}
}

// TestPageWords: under llama.cpp the tokens-per-block field is hidden (its
// KV cells are one token) and the KV line says "1 token", its line item
// "1 stream"; the chart's
// legend dot is the plan's colour; a lever to one GPU says "1 GPU".
func TestPageWords(t *testing.T) {
	doc := page(t, "/?model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=1&len=4096", http.StatusOK)
	if _, hidden := testid(doc, "block-field").Attr("hidden"); !hidden {
		t.Error("the tokens-per-block field is shown under llama.cpp")
	}
	if got := doc.Find(`.items caption [data-testid="kv"]`).Text(); !strings.Contains(got, " blocks of 1 token, ") {
		t.Errorf("KV %q, want blocks of 1 token", got)
	}
	if got := testid(doc, "item-kv").Find("th").Text(); !strings.HasSuffix(got, " cells × 1 stream)") {
		t.Errorf("KV line item %q, want its 1 stream", got)
	}
	if _, hidden := testid(page(t, "/?"+b1Query, http.StatusOK), "block-field").Attr("hidden"); hidden {
		t.Error("the tokens-per-block field is hidden under vramplan's engine")
	}
	nofit := page(t, "/?"+nofitQuery, http.StatusOK)
	if !testid(nofit, "chart-legend-point").HasClass("nofit") || testid(nofit, "chart-legend-point").HasClass("fits") {
		t.Error("the chart legend's dot is green for a plan that does not fit")
	}
}

// TestDocsAttributes: /docs lists every attribute of <vram-calculator>,
// engine and theme among them, and the README sends embedders there.
func TestDocsAttributes(t *testing.T) {
	doc := page(t, "/docs", http.StatusOK)
	for _, a := range templates.ComponentAttributes {
		if got := testid(doc, "attribute-"+a.Name).Find("code").Text(); got != a.Name {
			t.Errorf("/docs lists attribute %q as %q", a.Name, got)
		}
	}
	for _, name := range []string{"engine", "version", "view", "theme", "ngl"} {
		if testid(doc, "attribute-"+name).Length() != 1 {
			t.Errorf("/docs does not list %s", name)
		}
	}
	if got := testid(doc, "attribute-gpu").Text(); !strings.Contains(got, "RTX 4090") || !strings.Contains(got, "choice") {
		t.Errorf("/docs's gpu attribute %q does not say it takes a card's name, or that a name of several cards is a choice", got)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`/docs`") || !strings.Contains(string(readme), "`theme`") {
		t.Error("the README does not point embedders to /docs, or does not name the theme attribute")
	}
}
