package enginelog

import (
	"os"
	"testing"
)

// TestWrappedArgs checks a vLLM log copied from a terminal that wrapped
// its "non-default args" line in the middle of a value ('model': 'Qwe,
// then n2-7B-Instruct' on the next line): the cut value is not read as
// the model, and the engine's config line names it whole.
func TestWrappedArgs(t *testing.T) {
	for _, tc := range []struct{ s, key, want string }{
		{"{'model': 'Qwe", "model", ""},
		{"{'model': 'Qwen2-7B-Instruct', 'port': 8081}", "model", "Qwen2-7B-Instruct"},
		{"{'port': 8081, 'max_model_len': 163", "max_model_len", ""}, // a dict always closes
		{"{'max_model_len': 16384}", "max_model_len", "16384"},
		{"config: model='Qwen2-7B-Instruct', max_seq_len=16384, seed=0", "max_seq_len", "16384"},
		{"config: model='Qwen2-7B-Instruct', max_seq_len=163", "max_seq_len", ""}, // a list always closes
	} {
		got, ok := argValue(tc.s, tc.key, tc.s[0] == '{')
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("argValue(%q, %q) = %q, %v; want %q", tc.s, tc.key, got, ok, tc.want)
		}
	}
	data, err := os.ReadFile("../testdata/engines/corpus/vllm/vllm-0.10.1.1-qwen2-7b-a100-a.log")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(data)
	if err != nil || l.Settings == nil || l.Settings.Model != "Qwen2-7B-Instruct" {
		t.Errorf("Parse(a wrapped vLLM log).Settings = %+v, %v; want the model Qwen2-7B-Instruct", l.Settings, err)
	}
}
