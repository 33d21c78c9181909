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

// TestPageSplit checks llama.cpp's tensor split in the page: the ts field
// shown with its value under llama.cpp with two GPUs, the ranks its split
// gives, the launch command's -ts, and the totals labelled as sums over
// the GPUs; and the field hidden for one GPU or another engine.
func TestPageSplit(t *testing.T) {
	const q = "/?model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192&pp=2&ts=3,1"
	doc := page(t, q, http.StatusOK)
	if _, hidden := testid(doc, "ts-field").Attr("hidden"); hidden {
		t.Error("the ts field is hidden under llama.cpp with 2 GPUs")
	}
	if v, _ := testid(doc, "ts").Attr("value"); v != "3,1" {
		t.Errorf("ts field = %q, want 3,1", v)
	}
	if got := attrText(testid(doc, "rank-label")); len(got) != 2 || !strings.Contains(got[0], "layers 0-24") || !strings.Contains(got[1], "layers 25-31") {
		t.Errorf("rank labels %q, want layers 0-24 and 25-31", got)
	}
	if got := testid(doc, "launch-command").Text(); !strings.HasSuffix(got, "-sm layer -ts 3,1") {
		t.Errorf("launch = %q, want -sm layer -ts 3,1", got)
	}
	if got := attrText(testid(doc, "across")); len(got) != 3 || got[0] != ", all 2 GPUs" {
		t.Errorf("totals' labels say %q, want \", all 2 GPUs\" three times", got)
	}
	for _, other := range []string{strings.Replace(q, "&pp=2", "", 1), strings.Replace(q, "llama.cpp", "vllm", 1)} {
		if _, hidden := testid(page(t, other, http.StatusOK), "ts-field").Attr("hidden"); !hidden {
			t.Errorf("%s: the ts field is shown", other)
		}
	}
	one := page(t, strings.Replace(q, "&pp=2", "", 1), http.StatusOK)
	if got := strings.Join(attrText(testid(one, "across")), ""); got != "" {
		t.Errorf("one GPU's totals' labels say %q", got)
	}
}

// attrText returns the text of every element of sel.
func attrText(sel *goquery.Selection) []string {
	var out []string
	sel.Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
	return out
}

func TestPageLayoutErrors(t *testing.T) {
	for q, want := range map[string]string{
		"tp=two": "Tensor parallel: ", "pp=0": "Pipeline stages: ", "dp=2000": "Data-parallel replicas: ",
		"tp=3":                            "Tensor parallel: model.query_heads 64 is not divisible", // 64 query heads do not split 3 ways
		"ep=2":                            "Expert parallel: 2, but the model has no experts",       // a dense model has no experts
		"engine=llama.cpp&pp=2&ts=3,x":    "llama.cpp tensor split (-ts): share 1",
		"engine=llama.cpp&pp=2&ts=1,1,1":  "llama.cpp tensor split (-ts): 3 shares for the layout's 2 GPUs",
		"engine=llama.cpp&pp=2&ts=1,1e-9": "llama.cpp tensor split (-ts): device 1 gets no layer", // llama.cpp would give it none
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
