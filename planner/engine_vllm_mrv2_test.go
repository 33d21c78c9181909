package planner

import "testing"

// TestVLLMMRV2: a Model Runner V2 start is charged its profile, the
// larger of the forward pass and rows × vocab × 6 B beside tokens ×
// hidden × 4 B, whichever sampler path the log names, and its sampler
// state, max_num_seqs × (vocab + 2 × ⌈vocab ÷ 32⌉) × 4 B, which leaves
// the KV cache that much less; V0 refuses the option.
func TestVLLMMRV2(t *testing.T) {
	for _, tc := range []struct {
		model       string
		seqs, toks  int
		flashinfer  bool
		wantForward bool // the forward pass is the larger term
	}{
		{"qwen3-0.6b-bf16", 256, 2048, false, false},
		{"qwen3-0.6b-bf16", 256, 2048, true, false},
		{"llama-3.1-8b-instruct-bf16", 256, 8192, false, true},
	} {
		m := catalogModel(t, tc.model)
		plan := func(mrv2 bool, version string) (Plan, error) {
			in := Input{Model: m, Calibration: h100(79.18), Limits: Limits{MaxSeqLen: 16384, MaxBatch: tc.seqs, MaxPrefillTokens: tc.toks},
				Serving: Serving{Engine: EngineVLLM, Version: version,
					VLLM: VLLMOptions{GPUMemoryUtilization: 0.9, FlashInferSampler: tc.flashinfer, ModelRunnerV2: mrv2}}}
			return PlanMemory(in)
		}
		v1, err := plan(false, "0.29.0")
		if err != nil {
			t.Fatal(err)
		}
		v2, err := plan(true, "0.29.0")
		if err != nil {
			t.Fatal(err)
		}
		v, tokens := int64(m.VocabSize), int64(tc.toks)
		sampler := Bytes(int64(tc.seqs)*v*6 + tokens*int64(m.HiddenSize)*4)
		forward := Bytes(tokens * 2 * (3*int64(m.IntermediateSize) + 3*int64(m.HiddenSize)))
		if want := max(sampler, forward); itemBytes(&v2, "activation_peak") != want {
			t.Errorf("%s: MRV2 activation = %d, want %d (sampler %d, forward %d)", tc.model, itemBytes(&v2, "activation_peak"), want, sampler, forward)
		}
		if forward > sampler != tc.wantForward {
			t.Errorf("%s: forward %d > sampler %d is %v, want %v", tc.model, forward, sampler, forward > sampler, tc.wantForward)
		}
		state := Bytes(int64(tc.seqs) * 4 * (v + 2*((v+31)/32)))
		if got := itemBytes(&v2, "sampler_state"); got != state {
			t.Errorf("%s: sampler_state = %d, want %d", tc.model, got, state)
		}
		if got := itemBytes(&v1, "sampler_state"); got != 0 {
			t.Errorf("%s: V1 runner's sampler_state = %d, want none", tc.model, got)
		}
		moved := itemBytes(&v1, "kv") - itemBytes(&v2, "kv")
		if want := state + itemBytes(&v2, "activation_peak") - itemBytes(&v1, "activation_peak"); moved-want > v1.KV.BlockBytes || want-moved > v1.KV.BlockBytes {
			t.Errorf("%s: KV V1 − MRV2 = %d, want %d within a block", tc.model, moved, want)
		}
	}
	if _, err := PlanMemory(Input{Model: catalogModel(t, "qwen3-0.6b-bf16"), Calibration: h100(79.18),
		Serving: Serving{Engine: EngineVLLM, Version: "0.6.4", VLLM: VLLMOptions{ModelRunnerV2: true}}}); err == nil {
		t.Error("PlanMemory(V0 with serving.vllm.model_runner_v2) = nil error, want one")
	}
}
