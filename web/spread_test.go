package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestPageSpread holds the page's KV and weights ranges to the JSON plan
// of /api/plan for the same query: the line the planner says of each of
// the binding rank's spreads, on one GPU and on a layout of two.
func TestPageSpread(t *testing.T) {
	for _, q := range []string{
		"model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&len=16384",
		"model=llama-3.3-70b-instruct-fp8&gpu=est-h100-sxm-linux&engine=vllm&tp=2&len=16384",
	} {
		rec := get(t, "/api/plan?"+q)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /api/plan?%s = %d\n%s", q, rec.Code, rec.Body)
		}
		var p planner.Plan
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		e := p.Engine
		if p.Layout != nil {
			bp, _ := p.RankPlanOf(p.Layout.Binding)
			e = bp.Engine
		}
		if e == nil || len(e.Spreads) != 2 {
			t.Fatalf("/api/plan?%s: engine %+v, want two spreads", q, e)
		}
		doc := page(t, "/?"+q, http.StatusOK)
		for i, id := range []string{"kv-range", "weights-range"} {
			if got, want := strings.TrimSpace(testid(doc, id).Text()), e.Spreads[i].Line(); got != want {
				t.Errorf("/?%s: %s = %q\nthe JSON plan's %q", q, id, got, want)
			}
		}
		if several := strings.Contains(e.Spreads[0].Class, "more than one GPU"); several != (p.Layout != nil) {
			t.Errorf("/api/plan?%s: class %q, layout %v", q, e.Spreads[0].Class, p.Layout != nil)
		}
	}
	doc := page(t, "/?model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192", http.StatusOK)
	if _, hidden := testid(doc, "kv-range").Attr("hidden"); !hidden {
		t.Error("llama.cpp's plan shows a KV range; its KV buffer is exact")
	}
}
