package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineVersionFlag plans under the rules of the release --engine-version
// names, and refuses one that no range of the engine's profile covers,
// naming the ranges: in plan and in check.
func TestEngineVersionFlag(t *testing.T) {
	v0 := []string{"plan", "--engine", "vllm", "--model", "llama-3.1-8b-instruct-bf16", "--gpu", "est-rtx3090-linux",
		"--max-seq-len", "20000", "--gpu-memory-utilization", "0.9", "--engine-version"}
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout for 0, in stderr for 2
	}{
		{append(v0, "0.6.3"), 0, "planned as vLLM 0.6.3, by the rules read at vLLM 0.6 (V0 engine)"},
		{append(v0, "0.6.3"), 0, "--max-num-batched-tokens 20000"}, // V0 without chunked prefill: max(max_model_len, 2048)
		{append(v0, "0.9.0"), 0, "planned as vLLM 0.9.0, by the rules read at vLLM 0.9 (V1 engine)"},
		{append(v0, "0.3.3"), 2, "--engine-version: vLLM 0.3.3 is outside the releases the profile covers (0.4 up to 0.8 (V0 engine);"},
		{append(v0, "latest"), 2, `--engine-version: "latest" is not a release`},
		{[]string{"plan", "--engine", "sglang", "--model", "gemma-3-4b-it-bf16", "--gpu", "h200", "--max-seq-len", "8192",
			"--engine-version", "0.4.4"}, 0, "planned as SGLang 0.4.4"},
		{[]string{"plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", "8192", "--engine-version", "0.6"}, 2,
			"--engine-version: \"0.6\" is a release of an engine, and vramplan's own engine has none"},
	} {
		code, out, errs := runCLI(tc.args...)
		where := out
		if tc.code == 2 {
			where = errs
		}
		if code != tc.code || !strings.Contains(where, tc.want) {
			t.Errorf("%v = exit %d\n%s%s\nwant exit %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// TestCheckEngineVersion plans a log under the release --engine-version
// names.
func TestCheckEngineVersion(t *testing.T) {
	const d = "../../planner/testdata/engines/llamacpp-h200/"
	var data []byte
	for _, f := range []string{"logs/swa/load.log", "logs/swa/32768_4_1_f16_f16_0_512_0.log"} {
		b, err := os.ReadFile(d + f)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	log := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--log", log, "--model", d + "models/swa-gemma3-4b.json", "--gpu", "h200", "--engine-version"}
	if code, out, errs := runCLI(append(args, "b12100")...); code != 0 || !strings.Contains(out, "planned as llama.cpp b12072") {
		t.Errorf("check --engine-version b12100 = exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI(append(args, "b100")...); code != 2 || !strings.Contains(errs, "--engine-version: llama.cpp b100 is outside the releases") ||
		!strings.Contains(errs, "b12072 and later") {
		t.Errorf("check --engine-version b100 = exit %d, %q; want 2 naming the ranges", code, errs)
	}
}
