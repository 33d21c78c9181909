package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// llamaTP2 is Llama-3.3-70B at Q4_K_M on two RTX 5090s: one does not hold
// its weights, two do.
const llamaTP2 = "model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&batch=1&len=8192"

// TestPageLayout checks the server-rendered layout: the controls hold the
// sizes, a bar per distinct rank, the binding rank marked, and the launch
// command carrying the layout.
func TestPageLayout(t *testing.T) {
	doc := page(t, "/?"+llamaTP2+"&engine=vllm&tp=2", http.StatusOK)
	if v, _ := testid(doc, "tp").Attr("value"); v != "2" {
		t.Errorf("tp control = %q, want 2", v)
	}
	if got := testid(doc, "gpu-count").Text(); got != "2 GPUs" {
		t.Errorf("gpu-count = %q, want 2 GPUs", got)
	}
	if _, hidden := testid(doc, "ranks").Attr("hidden"); hidden {
		t.Fatal("the ranks section is hidden for a 2-GPU layout")
	}
	ranks := testid(doc, "rank")
	if ranks.Length() != 1 || testid(doc, "binding").Length() != 1 {
		t.Fatalf("%d rank bars, %d binding marks; want 1 and 1 (the two ranks hold the same bytes)", ranks.Length(), testid(doc, "binding").Length())
	}
	if got := testid(doc, "rank-label").Text(); !strings.HasPrefix(got, "ranks 0-1 · stage 0") {
		t.Errorf("rank label = %q", got)
	}
	if got := testid(doc, "launch-command").Text(); !strings.Contains(got, "--tensor-parallel-size 2") {
		t.Errorf("launch = %q, want --tensor-parallel-size 2", got)
	}
	if fits, _ := testid(doc, "verdict").Attr("data-fits"); fits != "true" {
		t.Errorf("verdict %q: data-fits %q", testid(doc, "verdict").Text(), fits)
	}
	one := page(t, "/?"+llamaTP2, http.StatusOK)
	if _, hidden := testid(one, "ranks").Attr("hidden"); !hidden || testid(one, "rank").Length() != 0 {
		t.Error("one GPU shows a per-rank section")
	}
	found := false
	for _, href := range attrs(testid(one, "lever"), "href") {
		found = found || strings.HasSuffix(href, "&tp=2")
	}
	if !found {
		t.Errorf("levers %v: none links to tp=2", attrs(testid(one, "lever"), "href"))
	}
}

func TestPageLayoutErrors(t *testing.T) {
	for q, want := range map[string]string{
		"tp=two": "tp:", "pp=0": "pp:", "dp=2000": "dp:",
		"tp=3": "parallel.tensor_parallel", // 64 query heads do not split 3 ways
		"ep=2": "parallel.expert_parallel", // a dense model has no experts
	} {
		doc := page(t, "/?"+llamaTP2+"&"+q, http.StatusBadRequest)
		if got := testid(doc, "error").Text(); !strings.Contains(got, want) {
			t.Errorf("%s: error = %q, want it to name %s", q, got, want)
		}
	}
}

// attrs returns the attribute k of every element of sel.
func attrs(sel *goquery.Selection, k string) []string {
	var out []string
	sel.Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr(k)
		out = append(out, v)
	})
	return out
}

// TestPageWeightsLever follows the weight-format lever of DeepSeek-V3 FP8
// on one H200: its link names the Q4_K_M variant and the layout it fits,
// and the page it leads to fits.
func TestPageWeightsLever(t *testing.T) {
	doc := page(t, "/?model=deepseek-v3-fp8&gpu=h200-linux-cuda13.0&batch=16&len=32768", http.StatusOK)
	var link string
	testid(doc, "lever").Each(func(_ int, s *goquery.Selection) {
		if strings.HasPrefix(s.Text(), "weights deepseek-v3-fp8 → deepseek-v3-q4_k_m, on ") {
			link, _ = s.Attr("href")
		}
	})
	if !strings.Contains(link, "model=deepseek-v3-q4_k_m&") || !strings.Contains(link, "pp=") {
		t.Fatalf("levers %v: no weights lever to deepseek-v3-q4_k_m on a layout", testid(doc, "lever").Text())
	}
	after := page(t, "/"+link, http.StatusOK)
	if fits, _ := testid(after, "verdict").Attr("data-fits"); fits != "true" {
		t.Errorf("%s: %s", link, testid(after, "verdict").Text())
	}
}
