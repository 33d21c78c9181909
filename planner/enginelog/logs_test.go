package enginelog

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/logs")

// logSources cites every start-up log under testdata/logs: the public
// thread it was posted in and its date (the post's, or where the stored
// copy of the thread does not show it, the date the log itself prints).
// Each fixture holds the thread's lines verbatim, a subset of them where
// the post's other lines are not memory lines; a line the stored copy of
// the thread cuts is kept up to the cut.
var logSources = map[string]string{
	"vllm-v0-rtx3090-llama31-8b.log": "https://github.com/vllm-project/vllm/issues/10517, comment of 2024-12-02 " +
		"(RTX 3090, meta-llama/Llama-3.1-8B-Instruct, --max-model-len 20000, the \"20k - OK\" run)",
	"vllm-v0-profile-16gb-tp.log":  "https://github.com/vllm-project/vllm/issues/11251, comment of 2024-12-21 (vLLM 0.6.4.post1, 0.9)",
	"vllm-v0-bamba-tp2.log":        "https://github.com/vllm-project/vllm/pull/10909, log printed 12-13 (2024; Bamba, two workers)",
	"vllm-v1-l40s-llama31-8b.log":  "https://github.com/vllm-project/vllm/pull/17122, description of 2025-04-24 (L40S, Llama-3.1-8B-Instruct, \"before this change\")",
	"vllm-v1-0.21-tp4-rtx3090.log": "https://github.com/noonghunna/club-3090/issues/127, log printed 05-14 (TP=4 on RTX 3090s)",
	"vllm-v1-0.11-tp4-args.log":    "https://github.com/vllm-project/vllm/issues/28910, log printed 11-18 (2025; vLLM 0.11.0, Qwen3-30B-A3B-Instruct-2507-FP8, TP 4)",
	"vllm-v1-0.12-engine-config.log": "https://github.com/vllm-project/vllm/issues/30031, log printed 12-04 (2025; vLLM 0.12.0, Qwen2-0.5B; " +
		"the config line cut where the stored thread wraps it)",
	"vllm-v1-graphs-captured.log":   "https://github.com/aivrar/vllm-windows-build/issues/4, log printed 2026-05-26",
	"vllm-v1-0.18-enginecore.log":   "https://github.com/vllm-project/vllm/pull/30515, log printed 03-08 (2026; before 0.19's CUDA-graph profiling)",
	"sglang-0.4-gemma3-4b-h200.log": "https://github.com/sgl-project/sglang/pull/4826, log printed 2025-03-27 (gemma-3-4b-it on an H200)",
	"sglang-b200-capture.log":       "https://github.com/sgl-project/sglang/pull/11830, log printed 2025-11-30 (B200)",
	"sglang-tp2-capture.log":        "https://github.com/sgl-project/sglang/pull/12978, log printed 2025-11-10",
	"sglang-dp-attention.log":       "https://github.com/sgl-project/sglang/pull/17157, log printed 2026-01-15 (DP attention, two ranks)",
	"sglang-npu-dtype-tp16.log":     "https://github.com/sgl-project/sglang/pull/29853, log printed 2026-07-01 (ranks other than 0 only)",
	"sglang-0.2-server-args.log": "https://github.com/sgl-project/sglang/issues/1030, comment of 2024-08-11 " +
		"(the server_args line cut where the comment's excerpt ends)",
}

// TestLogFixtures reads every published start-up log under testdata/logs
// and holds what is read — figures, pool, settings, version, the lines
// that look like memory lines and were not read — to its golden file,
// rewritten by go test -update.
func TestLogFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/logs/*.log")
	if len(files) != len(logSources) {
		t.Errorf("%d fixtures, %d cited", len(files), len(logSources))
	}
	for _, path := range files {
		name := filepath.Base(path)
		if logSources[name] == "" {
			t.Errorf("%s: no source cited", name)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.MarshalIndent(read(data).log(), "", "  ")
		got = append(got, '\n')
		golden := strings.TrimSuffix(path, ".log") + ".json"
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: read differs from %s (go test -update rewrites it):\n%s", name, golden, got)
		}
	}
}
