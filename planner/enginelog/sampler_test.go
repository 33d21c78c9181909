package enginelog

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// TestVLLMSampler: V1's "Using FlashInfer for top-p & top-k sampling."
// (dennislee22/vLLM-benchmarking, log/vllm-7B-1gpuA10080GB-0.25GRAM.log)
// is read as the FlashInfer sampler and planned so; the native fallback's
// warning, or no line, leaves the torch-native default.
func TestVLLMSampler(t *testing.T) {
	m, err := catalog.Lookup("llama-3.1-8b-instruct-bf16")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrations.Lookup("est-rtx3090")
	if err != nil {
		t.Fatal(err)
	}
	const head = "(EngineCore_0 pid=1812) INFO 09-04 01:02:54 [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: model='Qwen2-7B-Instruct', max_seq_len=16384, tensor_parallel_size=1\n" +
		"(EngineCore_0 pid=1812) INFO 09-04 01:04:29 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB\n"
	for _, c := range []struct {
		line string
		want bool
	}{
		{"(EngineCore_0 pid=1812) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n", true},
		{"(RayWorkerWrapper pid=1384) WARNING 09-03 04:38:28 [topk_topp_sampler.py:61] FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.\n", false},
		{"", false},
	} {
		l, err := Parse([]byte(head + c.line))
		if err != nil {
			t.Fatal(err)
		}
		in, err := l.Input(m, cal)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Serving.VLLM.FlashInferSampler; got != c.want {
			t.Errorf("Input(%q).Serving.VLLM.FlashInferSampler = %v, want %v", c.line, got, c.want)
		}
		if _, err := planner.PlanMemory(in); err != nil {
			t.Errorf("PlanMemory(%q): %v", c.line, err)
		}
	}
}

// TestReadSampler: Read reads the sampler line of a start-up that failed
// before it reported a memory figure, which Parse refuses; a V0 log's
// line is not V1's sampler.
func TestReadSampler(t *testing.T) {
	const head = "(EngineCore_0 pid=1812) INFO 09-04 01:02:54 [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: model='Qwen2-7B-Instruct', max_seq_len=16384, tensor_parallel_size=1\n" +
		"(EngineCore_0 pid=1812) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n"
	if _, err := Parse([]byte(head)); err == nil {
		t.Errorf("Parse(a log with no memory figures) = nil error")
	}
	for _, c := range []struct {
		log      string
		v0, want bool
	}{
		{head, false, true},
		{head + "INFO 09-04 01:03:00 worker.py:1 Memory profiling results: total_gpu_memory=79.1GiB\n", true, false},
	} {
		l, err := Read([]byte(c.log))
		if err != nil {
			t.Fatal(err)
		}
		if v0 := l.Settings != nil && l.Settings.V0; v0 != c.v0 {
			t.Errorf("Read(%q).Settings.V0 = %v, want %v", c.log, v0, c.v0)
		}
		if got := l.FlashInferSampler(); got != c.want {
			t.Errorf("Read(%q).FlashInferSampler() = %v, want %v (engine %q, settings %+v)", c.log, got, c.want, l.Engine, l.Settings)
		}
	}
	if _, err := Read(make([]byte, MaxLog+1)); err == nil {
		t.Errorf("Read(a log over MaxLog) = nil error")
	}
}
