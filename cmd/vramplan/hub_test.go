package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestHubReferences plans models named by their Hugging Face repositories,
// as engines' command lines and --model name them (issue 27 point 9): a
// catalog model where the catalog has it, else an error that says the
// model must be a local file or a catalog id and lists the nearest ids.
func TestHubReferences(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string // in stdout and stderr together
	}{
		{[]string{"plan", "--gpu", "4090", "--from-flags", "llama-server -hf Qwen/Qwen3-8B-GGUF:Q4_K_M"}, 0,
			[]string{"model qwen3-8b-q4_k_m", "Qwen3-8B Q4_K_M on NVIDIA GeForce RTX 4090"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "llama-server --hf-repo bartowski/Qwen_Qwen3-8B-GGUF --hf-file Qwen_Qwen3-8B-Q6_K.gguf -c 8192"}, 0,
			[]string{"model qwen3-8b-q6_k"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "llama-server -hfr unsloth/Qwen3-8B-GGUF -c 8192"}, 0,
			[]string{"model qwen3-8b-q4_k_m"}}, // llama.cpp's default quant
		{[]string{"plan", "--gpu", "h200", "--from-flags", "llama-server -hf ggml-org/gemma-3-12b-it-GGUF:Q8_0 -c 8192"}, 0,
			[]string{"model gemma-3-12b-it-q8_0", "also loads the repository's mmproj", "vision tower"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "llama-server -hf ggml-org/gemma-3-12b-it-GGUF:Q8_0 -c 8192 --no-mmproj"}, 0,
			[]string{"model gemma-3-12b-it-q8_0"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "vllm serve meta-llama/Llama-3.3-70B-Instruct -tp 2 --max-model-len 16384"}, 0,
			[]string{"model llama-3.3-70b-instruct-bf16"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "python -m sglang.launch_server --model-path Qwen/Qwen3-4B-Instruct-2507-FP8 --context-length 8192"}, 0,
			[]string{"model qwen3-4b-instruct-2507-fp8"}},
		{[]string{"plan", "--gpu", "h200", "--model", "Qwen/Qwen3-8B-GGUF:Q6_K", "--max-seq-len", "8192"}, 0,
			[]string{"Qwen3-8B Q6_K on NVIDIA H200"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "llama-server -hf Qwen/Qwen3-8B-GGUF:Q5_K_M"}, 2,
			[]string{"must be a local file (a .gguf, a config.json or a model directory) or a catalog id",
				"the catalog has this model as qwen3-8b-bf16, qwen3-8b-q4_k_m, qwen3-8b-q6_k, qwen3-8b-q8_0"}},
		{[]string{"plan", "--gpu", "h200", "--from-flags", "vllm serve Qwen/Qwen3-9B"}, 2,
			[]string{"must be a local file", "nearest: "}},
		{[]string{"plan", "--gpu", "h200", "--model", "someone/Unknown-Model", "--max-seq-len", "8192"}, 2,
			[]string{"--model: Hugging Face repository \"someone/Unknown-Model\" is not in vramplan's catalog", "nearest: "}},
	} {
		code, out, errs := runCLI(tc.args...)
		all := out + errs
		for _, w := range tc.want {
			if code != tc.code || !strings.Contains(all, w) {
				t.Errorf("%v = exit %d, output %q; want exit %d containing %q", tc.args, code, all, tc.code, w)
			}
		}
		if strings.Contains(all, "no such file") {
			t.Errorf("%v: %q says no such file", tc.args, all)
		}
	}
}

// TestCheckHubCache checks a log of llama-server -hf, whose model is a file
// of the download cache that is not here: it is planned as the catalog
// model whose GGUF file has that name (the H200 grid's dense run is
// Llama-3.1-8B-Instruct Q8_0's shape).
func TestCheckHubCache(t *testing.T) {
	log := startupLog(t, "dense", "32768_1_0_f16_f16_0_512_0")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	cached := "/root/.cache/huggingface/hub/models--bartowski--Meta-Llama-3.1-8B-Instruct-GGUF/snapshots/0a1b/Llama-3.1-8B-Instruct-Q8_0.gguf"
	os.WriteFile(log, bytes.ReplaceAll(data, []byte("/tmp/h16/models/dense-llama3-8b.gguf"), []byte(cached)), 0o644)
	code, out, errs := runCLI("check", "--log", log, "--gpu", "h200")
	if code != 0 || strings.Count(out, "within the log's rounding") != 3 || !strings.Contains(errs, "planned as the catalog's llama-3.1-8b-instruct-q8_0") {
		t.Errorf("check of an -hf log = exit %d\n%s%s", code, out, errs)
	}
}
