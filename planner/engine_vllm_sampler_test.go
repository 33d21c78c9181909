package planner

import "testing"

// TestVLLMSamplerPath: FlashInfer's warm-up is charged 14 B per row and
// vocabulary entry where the torch-native path is charged 38 B (both
// measured, vllmSamplerEntry), so the activation estimate differs by
// rows × vocab × 24 B; V0 refuses the option.
func TestVLLMSamplerPath(t *testing.T) {
	m := catalogModel(t, "qwen3-0.6b-bf16")
	plan := func(flashinfer bool, version string) (Bytes, error) {
		in := Input{Model: m, Calibration: h100(79.18), Limits: Limits{MaxSeqLen: 16384, MaxBatch: 256, MaxPrefillTokens: 2048},
			Serving: Serving{Engine: EngineVLLM, Version: version, VLLM: VLLMOptions{GPUMemoryUtilization: 0.9, FlashInferSampler: flashinfer}}}
		p, err := PlanMemory(in)
		return itemBytes(&p, "activation_peak"), err
	}
	native, err := plan(false, "0.10.1")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := plan(true, "0.10.1")
	if err != nil {
		t.Fatal(err)
	}
	if want := Bytes(256 * int64(m.VocabSize) * 24); native-fi != want {
		t.Errorf("activation native %d − FlashInfer %d = %d, want 256 × vocab %d × 24 B = %d", native, fi, native-fi, m.VocabSize, want)
	}
	if _, err := plan(true, "0.6.4"); err == nil {
		t.Error("PlanMemory(V0 with serving.vllm.flashinfer_sampler) = nil error, want one")
	}
}
