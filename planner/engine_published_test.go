package planner

import (
	"math"
	"testing"
)

// TestVLLMPublishedBlocks holds the vLLM profile's pages and blocks to a
// start-up log a user published in vllm-project/vllm issue #10517
// (Llama-3.1-8B-Instruct on an RTX 3090, --max-model-len 20000):
// "kv_cache_size=3.81GiB", "# GPU blocks: 1952", "Maximum concurrency for
// 20000 tokens per request: 1.56x". With the KV cache fixed at the size
// the log printed (--kv-cache-memory-bytes, so nothing else is estimated),
// the blocks are the published count within the print's rounding (3.81
// GiB ± 0.005 is ±2.6 blocks of 2 MiB) and the concurrency matches.
func TestVLLMPublishedBlocks(t *testing.T) {
	in := Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"),
		Calibration: Calibration{Schema: CalibrationSchema, ID: "rtx3090-published", GPU: "NVIDIA GeForce RTX 3090", DeviceTotal: gib(23.58)},
		Limits:      Limits{MaxSeqLen: 20000, BlockTokens: 16},
		Serving:     Serving{Engine: EngineVLLM, VLLM: VLLMOptions{GPUMemoryUtilization: 0.9, KVCacheMemoryBytes: gib(3.81)}}}
	p, err := Report(in)
	if err != nil {
		t.Fatal(err)
	}
	pool := p.Engine.Pool
	if pool.Blocks < 1952-3 || pool.Blocks > 1952+3 {
		t.Errorf("blocks = %d, published 1952 (within the 3.81 GiB print's rounding)", pool.Blocks)
	}
	if math.Abs(pool.MaxConcurrency-1.56) > 0.01 {
		t.Errorf("max concurrency at 20000 tokens = %.2fx, published 1.56x", pool.MaxConcurrency)
	}
}
