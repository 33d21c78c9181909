package planner

import (
	"strings"
	"testing"
)

// gb10 is a GB10 as its estimated calibration states it: CUDA's total of
// 119.70 GiB, the memory the host's.
func gb10() Calibration {
	return Calibration{Schema: CalibrationSchema, ID: "gb10-test", GPU: "NVIDIA GB10", DeviceTotal: gib(119.70), UnifiedMemory: true}
}

// TestVLLMUnifiedBatchDefaults: a unified-memory GPU of 119.70 GiB gets
// the small GPU's batch defaults (NVML reports it no total), a discrete
// one of the same size the big GPU's.
func TestVLLMUnifiedBatchDefaults(t *testing.T) {
	for _, tc := range []struct {
		uma          bool
		seqs, tokens int
	}{{true, 256, 2048}, {false, 1024, 8192}} {
		cal := gb10()
		cal.UnifiedMemory = tc.uma
		in := Input{Model: catalogModel(t, "qwen3-8b-bf16"), Calibration: cal, Limits: Limits{MaxSeqLen: 32768},
			Serving: Serving{Engine: EngineVLLM, Version: "0.13.0"}}
		if seqs, tokens := vllmBatchDefaults(&in, vllmRulesOf(&in)); seqs != tc.seqs || tokens != tc.tokens {
			t.Errorf("unified %v: max_num_seqs %d, max_num_batched_tokens %d, want %d and %d", tc.uma, seqs, tokens, tc.seqs, tc.tokens)
		}
	}
}

// TestVLLMUnifiedHost: on a unified-memory GPU the host's memory taken
// during the start is non-torch memory and comes out of the KV cache
// byte for byte; on a discrete GPU the field changes nothing; the plan
// says what it assumed, and notes a start the host's memory in use refuses.
func TestVLLMUnifiedHost(t *testing.T) {
	base := Input{Model: catalogModel(t, "qwen3-8b-bf16"), Limits: Limits{MaxSeqLen: 32768},
		Serving: Serving{Engine: EngineVLLM, Version: "0.13.0", VLLM: VLLMOptions{GPUMemoryUtilization: 0.4}}}
	kv := func(cal Calibration, host, used Bytes) (Bytes, []string) {
		in := base
		in.Calibration = cal
		in.Serving.VLLM.HostStartBytes, in.Serving.VLLM.HostUsedBytes = host, used
		p, err := Report(in)
		if err != nil {
			t.Fatal(err)
		}
		return p.Engine.Pool.PoolBytes, p.Engine.Notes
	}
	k0, notes := kv(gb10(), 0, 0)
	k2, _ := kv(gb10(), 2*GiB, 0)
	if k0-k2 != 2*GiB {
		t.Errorf("host_start_bytes 2 GiB took %d B of the KV cache, want %d", k0-k2, 2*GiB)
	}
	if n := strings.Join(notes, "\n"); !strings.Contains(n, "serving.vllm.host_start_bytes") || strings.Contains(n, "refuses") {
		t.Errorf("notes %q do not say what the plan assumed of the host, or refuse a start with none of it in use", notes)
	}
	h := gb10()
	h.UnifiedMemory = false
	d0, _ := kv(h, 0, 0)
	if d2, _ := kv(h, 2*GiB, 0); d2 != d0 {
		t.Errorf("host_start_bytes changed a discrete GPU's KV cache from %d to %d B", d0, d2)
	}
	_, refused := kv(gb10(), 0, 80*GiB) // 39.7 GiB available against a 47.9 GiB budget
	if !strings.Contains(strings.Join(refused, "\n"), "vLLM refuses to start") {
		t.Errorf("notes %q do not say that 80 GiB in use on the host refuses the start", refused)
	}
}
