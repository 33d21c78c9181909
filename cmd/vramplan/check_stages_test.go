package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestCheckPipelineStages checks the corpus's TP 2 × PP 2 DeepSeek-V2-Lite
// start, whose stages print their own KV cache memory (ranks 0–1 12.13
// GiB, ranks 2–3 11.33 GiB): each stage's row against its own plan, the
// pool against the plan's stage with the fewest tokens, and which stage
// binds in the plan (stage 1) and in the log (stage 0, whose 12.13 GiB over
// 14 layers is the printed 807,792 tokens). A TP log whose ranks print
// alike names no stage.
func TestCheckPipelineStages(t *testing.T) {
	const c = "../../planner/testdata/engines/corpus/"
	args := []string{"check", "--log", c + "vllm/vllm-unknown-v1-deepseek-v2-lite-l4-tp2-pp2.log", "--model", c + "configs/deepseek-ai__DeepSeek-V2-Lite.json",
		"--gpu", "l4", "--engine-version", "0.10.0", "--gpu-memory-utilization", "0.9"}
	code, out, errs := runCLI(args...)
	for _, want := range []string{"\n  stage 0: KV cache ", "\n  stage 1: KV cache ", "(printed by rank 2)\n",
		"the stage with the fewest tokens: in the plan stage 1 (794784 tokens; stage 0 797664), in the log stage 0 (its KV cache memory at the plan's bytes per token: 807568 tokens; stage 1 812331)."} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("check of the TP 2 x PP 2 log = %d, want %q in\n%s%s", code, want, out, errs)
		}
	}
	code, out, _ = runCLI(append(args, "--json")...)
	var doc struct {
		RankRows []struct {
			Rank  string `json:"rank"`
			Stage int    `json:"stage"`
			Ranks []int  `json:"ranks"`
			Rows  []struct {
				Key string `json:"key"`
				Log int64  `json:"log_bytes"`
			} `json:"rows"`
		} `json:"rank_rows"`
		Pool struct {
			Plan   int64 `json:"plan"`
			Stages *struct {
				Plan int `json:"plan"`
				Log  int `json:"log"`
			} `json:"stages"`
		} `json:"pool"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.RankRows) != 1 || doc.RankRows[0].Stage != 1 ||
		!slices.Equal(doc.RankRows[0].Ranks, []int{2, 3}) || doc.RankRows[0].Rank != "2" || len(doc.RankRows[0].Rows) != 1 ||
		doc.Pool.Plan != 794784 || doc.Pool.Stages == nil || doc.Pool.Stages.Plan != 1 || doc.Pool.Stages.Log != 0 {
		t.Errorf("check --json of the TP 2 x PP 2 log = %d, %+v, %v", code, doc, err)
	}
	code, out, _ = runCLI("check", "--log", c+"vllm/vllm-0.10.2-qwen3-30b-a3b-2507-fp8-l40s-tp2-ep.log", "--model", "qwen3-30b-a3b-q4_k_m", "--gpu", "est-l40s")
	if code != 0 || strings.Contains(out, "stage") || strings.Contains(out, "printed by rank") {
		t.Errorf("check of a TP 2 log whose rank 1 prints another KV memory = %d, want no stage named:\n%s", code, out)
	}
}
