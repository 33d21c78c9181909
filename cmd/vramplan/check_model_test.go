package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
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
		// The repository's former id, meta-llama/Meta-Llama-3.1-8B-Instruct.
		{"vllm/vllm-0.11.0-llama3.1-8b-l4.log", "l4", "llama-3.1-8b-instruct-bf16"},
		{"sglang/sglang-0.4.1-llama3.1-8b-unknown80g.log", "h100-sxm", "llama-3.1-8b-instruct-bf16"},
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

// TestCheckGPUFromLog checks a llama-server log without --gpu: the device
// ggml_cuda_init printed ("Device 0: NVIDIA H200, …") is the GPU, and the
// check says it took it from the log; a log that names none asks for --gpu.
func TestCheckGPUFromLog(t *testing.T) {
	log := startupLog(t, "dense", "32768_1_0_f16_f16_0_512_0")
	code, out, errs := runCLI("check", "--log", log, "--model", "../../planner/testdata/engines/llamacpp-h200/models/dense-llama3-8b.json")
	if code != 0 || !strings.Contains(out, " on h200-linux-cuda13.0") || !strings.Contains(errs, "--gpu: taken from the log: NVIDIA H200") {
		t.Errorf("check of an H200 llama-server log without --gpu = exit %d\n%s%s", code, out, errs)
	}
	// A log's device name is looked up as a card, never read as a file.
	data, _ := os.ReadFile(log)
	os.WriteFile(log, []byte(strings.Replace(string(data), "Device 0: NVIDIA H200", "Device 0: "+log, 1)), 0o644)
	if code, _, errs := runCLI("check", "--log", log, "--model", "llama-3.1-8b-instruct-q8_0"); code != 2 || !strings.Contains(errs, "--gpu: the log's GPU: no calibration") {
		t.Errorf("check of a log whose device is a path = exit %d, %q; want 2 and no such card", code, errs)
	}
	const vllm = "../../planner/testdata/engines/corpus/vllm/vllm-0.19.1-qwen3-8b-a100-40gb.log"
	if code, _, errs := runCLI("check", "--log", vllm); code != 2 || !strings.Contains(errs, "--gpu: required") {
		t.Errorf("check of a log that names no GPU, without --gpu = exit %d, %q; want 2 and --gpu asked for", code, errs)
	}
}

// TestCountTooLarge checks a count flag given a number of digits too large
// to be one: it is said to be too large, not "not a count".
func TestCountTooLarge(t *testing.T) {
	for _, v := range []string{"99999999999999999999", "9223372036854775807", "2000000000G"} {
		code, _, errs := runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", v)
		if code != 2 || !strings.Contains(errs, "too large") || strings.Contains(errs, "not a count") {
			t.Errorf("plan --max-seq-len %s = exit %d, %q; want 2 and too large", v, code, errs)
		}
	}
}

// TestParallelSizeFlags checks vramplan's own parallel flags read sizes as
// --from-flags reads an engine's (cmdline.ParseSize): a suffix counts, and a
// size past planner.MaxParallel or below 1 is said to be one, on plan and
// check alike.
func TestParallelSizeFlags(t *testing.T) {
	for _, tc := range []struct{ cmd, flag, v, want string }{
		{"plan", "--tensor-parallel", "99999999999999999999", `"99999999999999999999" is too large (more than 1024`},
		{"plan", "--pipeline-parallel", "2K", `"2K" is too large (more than 1024`},
		{"plan", "--data-parallel", "0", `"0" is not a count in [1, 1024]`},
		{"plan", "--expert-parallel", "x", `"x" is not a count in [1, 1024]`},
		{"check", "--tensor-parallel", "-2", `"-2" is not a count in [1, 1024]`},
	} {
		args := []string{tc.cmd, "--model", "qwen3-8b-q8_0", "--gpu", "h200", tc.flag, tc.v}
		if tc.cmd == "check" {
			args = append(args, "--log", "../../planner/testdata/engines/corpus/vllm/vllm-0.19.1-qwen3-8b-a100-40gb.log")
		}
		if code, _, errs := runCLI(args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s %s %s = exit %d, %q; want 2 and %s", tc.cmd, tc.flag, tc.v, code, errs, tc.want)
		}
	}
	code, out, errs := runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", "4096", "--tensor-parallel", "2", "--json")
	if code > 1 || !strings.Contains(out, `"tensor_parallel": 2`) {
		t.Errorf("plan --tensor-parallel 2 = exit %d, %s %s; want a TP 2 plan", code, out, errs)
	}
}

// TestTableError checks that the commands return the calibration table's
// error rather than resolving a GPU in an empty table: check with the GPU
// taken from the log, check and plan with --gpu, and gpus.
func TestTableError(t *testing.T) {
	saved := calibrationTable
	t.Cleanup(func() { calibrationTable = saved })
	calibrationTable = func() ([]planner.Calibration, error) { return nil, errors.New("the calibration table: broken") }
	log := startupLog(t, "dense", "32768_1_0_f16_f16_0_512_0")
	const model = "../../planner/testdata/engines/llamacpp-h200/models/dense-llama3-8b.json"
	for _, args := range [][]string{
		{"check", "--log", log, "--model", model},
		{"check", "--log", log, "--model", model, "--gpu", "h200"},
		{"plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", "4096"},
		{"gpus", "--model", "qwen3-8b-q8_0", "--max-seq-len", "4096"},
	} {
		if code, _, errs := runCLI(args...); code != 2 || !strings.Contains(errs, "the calibration table: broken") {
			t.Errorf("%v with a broken table = exit %d, %q; want 2 and the table's error", args, code, errs)
		}
	}
}

// TestCheckSamplerAssumed: a vLLM log that does not say which top-k/top-p
// sampler ran lists it among the facts assumed, in the text and the JSON;
// one that logs FlashInfer's does not.
func TestCheckSamplerAssumed(t *testing.T) {
	const c = "../../planner/testdata/engines/corpus/"
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"check", "--log", c + "vllm/vllm-0.19.1-qwen3-8b-a100-40gb.log", "--gpu", "a100-40gb"}, true},
		{[]string{"check", "--log", c + "vllm/vllm-0.10.1.1-qwen2-7b-a100-a.log", "--gpu", "a100-80gb", "--model", c + "configs/Qwen__Qwen2-7B-Instruct.json"}, false},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 0 || strings.Contains(out, "which top-k/top-p sampler") != tc.want {
			t.Errorf("%v = exit %d\n%s%s\nwant the sampler assumed: %v", tc.args, code, out, errs, tc.want)
		}
		code, out, errs = runCLI(append(tc.args, "--json")...)
		var doc struct{ Assumptions []struct{ Fact string } }
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("%v --json = exit %d, %v\n%s", tc.args, code, err, errs)
		}
		got := slices.ContainsFunc(doc.Assumptions, func(a struct{ Fact string }) bool { return a.Fact == "sampler" })
		if got != tc.want {
			t.Errorf("%v --json: sampler among the assumptions = %v, want %v (%+v)", tc.args, got, tc.want, doc.Assumptions)
		}
	}
}
