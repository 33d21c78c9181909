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

// TestVLLMTritonSampler: from 0.17 the torch-native path masks top-k/top-p
// with the Triton kernel once the warm-up has 8 rows or more, so it is
// charged 14 B per row and vocabulary entry and the kernel's float32
// buffer of min(rows, SMs) rows, rounded up to a power of two and at most
// the SM count; 0.16, 7 rows and FlashInfer's path keep their charges.
func TestVLLMTritonSampler(t *testing.T) {
	m := catalogModel(t, "qwen3-0.6b-bf16")
	v := int64(m.VocabSize)
	act := func(version string, seqs, sm int, flashinfer bool) Bytes {
		cal := h100(79.18)
		cal.SMCount = sm
		in := Input{Model: m, Calibration: cal, Limits: Limits{MaxSeqLen: 16384, MaxBatch: seqs, MaxPrefillTokens: 2048},
			Serving: Serving{Engine: EngineVLLM, Version: version, VLLM: VLLMOptions{GPUMemoryUtilization: 0.9, FlashInferSampler: flashinfer}}}
		p, err := PlanMemory(in)
		if err != nil {
			t.Fatalf("PlanMemory(%s, %d seqs): %v", version, seqs, err)
		}
		return itemBytes(&p, "activation_peak")
	}
	text := Bytes(2048 * int64(m.HiddenSize) * 4)
	for _, tc := range []struct {
		version    string
		seqs, sm   int
		flashinfer bool
		want       Bytes
	}{
		{"0.16.0", 256, 132, false, Bytes(256 * v * 38)},
		{"0.17.0", 256, 132, false, Bytes(256*v*14 + 132*v*4)},
		{"0.22.0", 256, 132, false, Bytes(256*v*14 + 132*v*4)},
		{"0.22.0", 100, 132, false, Bytes(100*v*14 + 128*v*4)},
		{"0.22.0", 20, 132, false, Bytes(20*v*14 + 32*v*4)},
		{"0.22.0", 256, 0, false, Bytes(256 * v * 14)},
		{"0.22.0", 7, 132, false, Bytes(7 * v * 38)},
		{"0.22.0", 256, 132, true, Bytes(256 * v * 14)},
	} {
		if got := act(tc.version, tc.seqs, tc.sm, tc.flashinfer) - text; got != tc.want {
			t.Errorf("activation(%s, %d rows, %d SMs, FlashInfer %v) − tokens × hidden × 4 B = %d, want %d", tc.version, tc.seqs, tc.sm, tc.flashinfer, got, tc.want)
		}
	}
}
