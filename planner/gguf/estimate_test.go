package gguf

import (
	"testing"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// kvOf plans m for batch sequences of n tokens in f16 and returns the KV bytes.
func kvOf(t *testing.T, m planner.Model, batch, n int) planner.Bytes {
	cal, err := calibrations.Lookup("rtx5090-wsl2-cuda13.3")
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.PlanMemory(planner.Input{Model: m, Calibration: cal, Budget: 1 << 50,
		Limits: planner.Limits{MaxBatch: batch, MaxSeqLen: n, KVDtype: planner.KVDtypeF16}})
	if err != nil {
		t.Fatal(err)
	}
	return p.KV.Bytes + recurrent(m, batch)
}

// recurrent is the per-sequence state of m's recurrent layers for batch sequences.
func recurrent(m planner.Model, batch int) planner.Bytes {
	var b planner.Bytes
	for _, g := range m.Layers {
		if r := g.Recurrent; r != nil {
			b += planner.Bytes(g.Count*batch) * planner.Bytes(r.ConvChannels*(r.ConvKernel-1)*4+r.Heads*r.HeadDim*r.StateDim*r.StateBytes)
		}
	}
	return b
}

// TestEstimatorKV compares KV bytes with gguf-parser-go's llama.cpp
// estimator on the same files: a context of batch×n tokens shared by batch
// sequences, f16 cache. Where they differ, the comment says why.
func TestEstimatorKV(t *testing.T) {
	tests := []struct {
		config, fileType string
		batch, n         int
		// diff is estimator − planner, in bytes; each non-zero one is explained.
		diff int64
	}{
		// Full attention: both are layers × kv_heads × (key+value dims) × 2 B per token.
		{"meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", 8, 4096, 0},
		{"Qwen__Qwen3-30B-A3B", "q8_0", 4, 8192, 0},
		// Recurrent layers: both keep (d_conv−1)·conv channels + d_inner·d_state f32 per sequence.
		{"Qwen__Qwen3-Next-80B-A3B-Instruct", "q4_k_m", 4, 4096, 0},
		// Sliding window: llama.cpp keeps window·n_seq + n_batch (2048) tokens,
		// padded to 256, per sliding layer; the planner keeps ⌈window/16⌉+1
		// blocks of 16 tokens per sequence (seed B2). Gemma-3-4b: 29 sliding
		// layers × 4096 B/token × (6144 − 4·1040) tokens.
		{"google__gemma-3-4b-it", "q4_k_m", 4, 4096, 29 * 4096 * (6144 - 4*1040)},
		// gpt-oss-20b: 12 sliding layers × 2048 B/token × (3072 − 8·144) tokens.
		{"openai__gpt-oss-20b", "mxfp4_moe", 8, 4096, 12 * 2048 * (3072 - 8*144)},
		// MLA: the estimator sizes one "head" of key_length_mla + value_length_mla
		// (192 + 128) per token; llama.cpp's MLA cache, like the planner, holds
		// one kv_lora_rank + rope latent (512 + 64) and reads V as a view of it.
		// DeepSeek-V2-Lite: 27 layers × 16384 tokens × (320 − 576) × 2 B.
		{"deepseek-ai__DeepSeek-V2-Lite-Chat", "q4_k_m", 4, 4096, 27 * 16384 * (320 - 576) * 2},
	}
	for _, tt := range tests {
		path, _ := writeFixture(t, tt.config, tt.fileType, false)
		m, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		gf, _ := parse(path)
		e := gf.EstimateLLaMACppRun(parser.WithLLaMACppContextSize(int32(tt.batch*tt.n)), parser.WithParallelSize(int32(tt.batch)))
		var est int64
		for _, d := range e.Devices {
			est += int64(d.KVCache.Sum())
		}
		if got := est - int64(kvOf(t, m, tt.batch, tt.n)); got != tt.diff {
			t.Errorf("%s: estimator KV %d − planner KV = %d, want %d", tt.config, est, got, tt.diff)
		}
	}
}
