package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckModelFromLog checks vLLM and SGLang logs without --model: the
// model their configuration line names (vLLM's model='…', SGLang's
// model_path='…') is planned, and the check says it took it from the log;
// a path that is not here asks for --model by name.
func TestCheckModelFromLog(t *testing.T) {
	const corpus = "../../planner/testdata/engines/corpus/"
	for _, tt := range []struct{ log, gpu, want string }{
		{"vllm/vllm-0.19.1-qwen3-8b-a100-40gb.log", "a100-40gb", "qwen3-8b-bf16"},
		{"sglang/sglang-0.5.10.post1-qwen2.5-0.5b-h100-nvl.log", "h100-pcie", "qwen2.5-0.5b-instruct-bf16"},
	} {
		code, out, errs := runCLI("check", "--log", corpus+tt.log, "--gpu", tt.gpu)
		if code != 0 || !strings.Contains(out, " for "+tt.want+" on ") || !strings.Contains(errs, "--model: taken from the log") {
			t.Errorf("check --log %s without --model = exit %d\n%s%s; want %s, said to be the log's", tt.log, code, out, errs, tt.want)
		}
	}
	data, err := os.ReadFile(corpus + "vllm/vllm-0.19.1-qwen3-8b-a100-40gb.log")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "away.log")
	os.WriteFile(log, []byte(strings.ReplaceAll(string(data), "Qwen/Qwen3-8B", "/data/nowhere/Qwen3-8B")), 0o644)
	code, _, errs := runCLI("check", "--log", log, "--gpu", "a100-40gb")
	if code != 2 || !strings.Contains(errs, "/data/nowhere/Qwen3-8B") || !strings.Contains(errs, "give --model") {
		t.Errorf("check of a log whose model is not here = exit %d, %q; want 2, the path and --model asked for", code, errs)
	}
}
