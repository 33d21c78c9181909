package catalog

import (
	"slices"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestVariants checks that a model's variants are the catalog's other
// formats of its shape, whichever way the model is looked up.
func TestVariants(t *testing.T) {
	want := map[string][]string{
		"qwen3-4b-instruct-2507-bf16": {"qwen3-4b-instruct-2507-fp8", "qwen3-4b-instruct-2507-q4_k_m", "qwen3-4b-instruct-2507-q8_0"},
		"deepseek-v3-fp8":             {"deepseek-v3-q4_k_m"},
		"llama-3.1-8b-instruct-q8_0":  {"llama-3.1-8b-instruct-awq-int4", "llama-3.1-8b-instruct-bf16", "llama-3.1-8b-instruct-q4_k_m", "llama-3.1-8b-instruct-q6_k"},
		"gemma-2-2b-it-q4_k_m":        nil,
		"qwen3-30b-a3b-q4_k_m":        nil, // not Qwen3-Coder-30B-A3B, whose shape differs
	}
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		w, ok := want[m.ID]
		if !ok {
			continue
		}
		l, err := Lookup(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range [][]string{ids(m.Variants), ids(l.Variants)} {
			if !slices.Equal(got, w) {
				t.Errorf("%s: variants %v, want %v", m.ID, got, w)
			}
		}
		for _, v := range m.Variants {
			if v.Weights.Bytes == m.Weights.Bytes || v.Weights.Dtype == "" {
				t.Errorf("%s: variant %s has weights %+v", m.ID, v.ID, v.Weights.Bytes)
			}
		}
	}
}

func ids(vs []planner.Variant) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}
