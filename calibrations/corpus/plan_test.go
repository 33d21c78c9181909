package corpus_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
)

func TestBandOf(t *testing.T) {
	for _, c := range []struct{ engine, version, want string }{
		{corpus.EngineVLLM, "0.2.3", "vLLM 0.2–0.3 (V0)"},
		{corpus.EngineVLLM, "0.5.3.post1", "vLLM 0.4–0.5 (V0)"},
		{corpus.EngineVLLM, "0.7.2", "vLLM 0.6–0.7 (V0)"},
		{corpus.EngineVLLM, "unknown-v0", "vLLM V0, release not known"},
		{corpus.EngineVLLM, "0.8.5", "vLLM 0.8–0.9 (V1)"},
		{corpus.EngineVLLM, "0.10.1.dev101+gbda9d0535", "vLLM 0.10–0.11 (V1)"},
		{corpus.EngineVLLM, "0.20.9", "vLLM 0.12–0.20 (V1)"},
		{corpus.EngineVLLM, "0.21.0", "vLLM 0.21 and later (V1)"},
		{corpus.EngineVLLM, "unknown-v1", "vLLM V1, release not known"},
		{corpus.EngineSGLang, "unknown-0.4", "SGLang 0.4"},
		{corpus.EngineSGLang, "0.5.2rc2", "SGLang 0.5"},
		{corpus.EngineSGLang, "main@ebaf86d", "SGLang main (a source build)"},
		{corpus.EngineSGLang, "0.0.0.dev11582+g4df60434d", "SGLang main (a source build)"},
		{corpus.EngineVLLM, "0.1.7", ""},
		{corpus.EngineVLLM, "main@abc", ""},
		{corpus.EngineSGLang, "unknown", "SGLang, release not known"},
		{corpus.EngineSGLang, "unknown-v1", ""},
		{corpus.EngineSGLang, "x.y", ""},
	} {
		e := corpus.Entry{ID: c.engine + "-x", Engine: c.engine, Version: c.version}
		b, err := corpus.BandOf(&e)
		if c.want == "" {
			if err == nil {
				t.Errorf("BandOf(%s %s) = %q, want an error", c.engine, c.version, b.Name)
			}
			continue
		}
		if err != nil || b.Name != c.want {
			t.Errorf("BandOf(%s %s) = %q, %v; want %q", c.engine, c.version, b.Name, err, c.want)
		}
	}
}

// TestRelease holds the release each corpus spelling is planned under to
// the one BandOf files it by: an era is planned under the newest rules,
// never as the release its "v1" would parse as.
func TestRelease(t *testing.T) {
	for _, c := range []struct{ version, want string }{
		{"0.10.1.1", "0.10.1.1"},
		{"0.10.1.dev101+gbda9d0535", "0.10.1.dev101+gbda9d0535"},
		{"unknown-0.4", "0.4"},
		{"unknown-v0", ""},
		{"unknown-v1", ""},
		{"unknown", ""},
		{"main@ebaf86d", ""},
		{"0.0.0.dev11582+g4df60434d", ""},
		{"x.y", ""},
	} {
		e := corpus.Entry{ID: "vllm-x", Engine: corpus.EngineVLLM, Version: c.version}
		if got := corpus.Release(&e); got != c.want {
			t.Errorf("Release(%q) = %q, want %q", c.version, got, c.want)
		}
	}
}

func raw(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// TestInput holds the launch configuration's keys to the planner input
// they set, through planner/cmdline.
func TestInput(t *testing.T) {
	e := corpus.Entry{ID: "vllm-x", Engine: corpus.EngineVLLM, GPU: corpus.GPU{Name: "NVIDIA L40S", Count: 2, TotalGiB: 44.42},
		Model: corpus.Model{HFID: "ibm-granite/granite-4.0-micro", Config: "planner/hf/testdata/configs/ibm-granite__granite-4.0-micro.json", Family: "dense"},
		Config: map[string]json.RawMessage{"max_model_len": raw(8192), "gpu_memory_utilization": raw(0.85), "tensor_parallel_size": raw(2),
			"max_num_seqs": raw(64), "block_size": raw(32), "enforce_eager": raw(true), "enable_prefix_caching": raw(false),
			"quantization": raw("fp8"), "dtype": raw("bfloat16"), "kv_cache_dtype": raw("fp8"), "cpu_offload_gb": json.RawMessage("null")}}
	in, cal, err := corpus.Input(&e, root)
	if err != nil {
		t.Fatal(err)
	}
	l, v := in.Limits, in.Serving.VLLM
	if l.MaxSeqLen != 8192 || l.MaxBatch != 64 || l.BlockTokens != 32 || l.KVDtype != planner.KVDtypeFP8 ||
		v.GPUMemoryUtilization != 0.85 || !v.EnforceEager || in.Parallel.Tensor != 2 || in.Serving.Engine != planner.EngineVLLM {
		t.Errorf("Input: limits %+v, vLLM %+v, TP %d, engine %q", l, v, in.Parallel.Tensor, in.Serving.Engine)
	}
	if in.Model.Weights.Dtype != "fp8" {
		t.Errorf("Input: weights %q, want fp8 (online --quantization fp8 of a bf16 checkpoint)", in.Model.Weights.Dtype)
	}
	if want := planner.Bytes(math.Round(e.GPU.TotalGiB * float64(planner.GiB))); in.Calibration.DeviceTotal != want || cal != "est-l40s-linux" {
		t.Errorf("Input: calibration %s, total %d; want est-l40s-linux, %d", cal, in.Calibration.DeviceTotal, want)
	}
	e.Model.Config, e.Notes = "", []string{corpus.Unplannable + "no config"}
	if _, _, err := corpus.Input(&e, root); err == nil {
		t.Error("Input(no model) = nil error")
	}
}

// TestInputSampler: an entry is planned with FlashInfer's top-k/top-p
// sampler when its log says so as planner/enginelog reads it, a failed
// start's log with no memory figures included, and never for a V0 log.
func TestInputSampler(t *testing.T) {
	const v1 = "(EngineCore_0 pid=1) INFO 09-04 01:02:54 [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: model='m'\n"
	const flashinfer = "(EngineCore_0 pid=1) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] " + planner.VLLMFlashInferSampler + "\n"
	const v0 = "INFO 09-04 01:03:00 worker.py:1 Memory profiling results: total_gpu_memory=79.1GiB\n"
	for _, c := range []struct {
		engine, log string
		want        bool
	}{
		{corpus.EngineVLLM, v1 + flashinfer, true},
		{corpus.EngineVLLM, v1, false},
		{corpus.EngineVLLM, v1 + flashinfer + v0, false},
		{corpus.EngineSGLang, flashinfer, false},
	} {
		e := corpus.Entry{ID: "x", Engine: c.engine, Version: "0.10.1.1", GPU: corpus.GPU{Name: "NVIDIA H200", Count: 1, TotalGiB: 139.8},
			Model:  corpus.Model{Config: "planner/hf/testdata/configs/ibm-granite__granite-4.0-micro.json", Family: "dense"},
			Config: map[string]json.RawMessage{"max_model_len": raw(8192)}, Log: c.log}
		in, _, err := corpus.Input(&e, root)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Serving.VLLM.FlashInferSampler; got != c.want {
			t.Errorf("Input(%s log %q).Serving.VLLM.FlashInferSampler = %v, want %v", c.engine, c.log, got, c.want)
		}
	}
}
