package enginelog

import (
	"math"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// vLLM and SGLang cannot run on the machines this project has (the GPU
// host reaches no network, so neither engine nor a model can be installed
// on it). Their parsers are held here to start-up lines that users and the
// engines' maintainers published, each cited by where it was printed.

// TestPublishedVLLMLines reads vLLM V1's KV-cache lines as printed in
// vllm-project/vllm PR #13596 (the change that introduced "GPU KV cache
// size", in its description) and in issue #21348 (Qwen3-235B-A22B-FP8,
// TP 4 on H100s), thousands separators included.
func TestPublishedVLLMLines(t *testing.T) {
	for _, c := range []struct {
		source, log string
		tokens      int64
		conc        float64
		concLen     int
		kvGiB       float64
	}{
		{"vllm PR #13596", "INFO 02-19 23:56:55 kv_cache_utils.py:524] GPU KV cache size: 2,042,016 tokens\n" +
			"INFO 02-19 23:56:55 kv_cache_utils.py:527] Maximum concurrency for 2,048 tokens per request: 997.08x\n",
			2042016, 997.08, 2048, 0},
		{"vllm issue #21348", "Available KV cache memory: 8.11 GiB\nGPU KV cache size: 178,880 tokens\n", 178880, 0, 0, 8.11},
		{"vllm PR #12569 (V0-era line, ported to V1)", "INFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x\n",
			0, 10.79, 2048, 0},
	} {
		l, err := Parse([]byte(c.log))
		if err != nil || l.Engine != planner.EngineVLLM || l.Pool == nil {
			t.Errorf("%s: Parse = %+v, %v; want a vLLM pool", c.source, l, err)
			continue
		}
		if l.Pool.Tokens != c.tokens || l.Pool.ConcurrencyLen != c.concLen || math.Abs(l.Pool.MaxConcurrency-c.conc) > 1e-9 {
			t.Errorf("%s: pool = %+v, want %d tokens, %.2fx at %d", c.source, *l.Pool, c.tokens, c.conc, c.concLen)
		}
		if c.kvGiB > 0 && (len(l.Figures) != 1 || math.Abs(float64(l.Figures[0].Bytes)/float64(planner.GiB)-c.kvGiB) > 0.005) {
			t.Errorf("%s: figures = %+v, want KV %.2f GiB", c.source, l.Figures, c.kvGiB)
		}
	}
}

// TestPublishedSGLangLine reads the SGLang line quoted in vllm-project/vllm
// issue #21348 (Qwen3-235B-A22B-FP8, --tp 4, --mem-fraction-static 0.93)
// and checks its figures against the model's shape: 94 layers, 4 KV heads
// of 128, one head per rank at TP 4, bf16 — 24,064 bytes of K per token, so
// 367,404 tokens hold 8.23 GiB of K and as much V, as SGLang printed (its
// "GB" is GiB: model_runner.py divides by 1024³).
func TestPublishedSGLangLine(t *testing.T) {
	l, err := Parse([]byte("KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n"))
	if err != nil || l.Engine != planner.EngineSGLang || l.Pool == nil || l.Pool.Tokens != 367404 || len(l.Figures) != 1 {
		t.Fatalf("Parse = %+v, %v", l, err)
	}
	const kPerToken = 1 * 128 * 94 * 2
	want := planner.Bytes(2 * 367404 * kPerToken)
	if f := l.Figures[0]; f.Bytes-want > f.Resolution || want-f.Bytes > f.Resolution {
		t.Errorf("K + V = %d bytes ± %d, want %d (two 8.23 GiB halves from the shape)", f.Bytes, f.Resolution, want)
	}
}
