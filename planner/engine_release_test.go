package planner

import (
	"errors"
	"testing"
)

// v0Run is issue 29's vLLM V0 run: vllm-project/vllm issue #10517
// (https://github.com/vllm-project/vllm/issues/10517, comment of
// 2024-12-02; corpus entries vllm-0.6.4-llama3.1-8b-rtx3090-a and -b),
// Llama-3.1-8B-Instruct on an RTX 3090 at --gpu-memory-utilization 0.9:
//
//	Loading model weights took 14.9888 GB
//	Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB
//	  memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
//	GPU blocks: 1952, # CPU blocks: 2048
//
// at --max-model-len 20000, and peak_torch_memory=17.98GiB with 1478
// blocks at 29000. The log's format is v0.6.4's (the corpus entry says
// why), inside the profile's V0 range.
func v0Run(t *testing.T, maxLen int) Input {
	return Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"),
		Calibration: Calibration{Schema: CalibrationSchema, ID: "rtx3090-published", GPU: "NVIDIA GeForce RTX 3090", DeviceTotal: gib(23.58)},
		Limits:      Limits{MaxSeqLen: maxLen},
		Serving:     Serving{Engine: EngineVLLM, Version: "0.6.4", VLLM: VLLMOptions{GPUMemoryUtilization: 0.9}}}
}

// TestVLLMV0Run holds the V0 range's rules to the issue #10517 run: the
// profile run at max_num_batched_tokens = max_model_len (no chunked
// prefill below 32k), its activation peak (the log's peak_torch_memory
// less the weights) within 2 % at 20k and 29k (−0.5 %, −0.1 %), and,
// with the log's weights and non-torch memory given, the KV cache's 1952
// blocks (31,232 tokens) and 1478 within 1 % (+0.3 % each), the 29k run
// refused as vLLM refused it. With the profile's own non-torch estimate
// (0.15 GiB, where this card's log says 0.35) the KV tokens are +6.3 %,
// which the test holds too, so a change in either is seen; the newest
// range's rules miss by +40 % (issue 29's table).
func TestVLLMV0Run(t *testing.T) {
	weights := gib(14.9888)
	for _, tc := range []struct {
		maxLen int
		peak   float64 // GiB, the log's peak_torch_memory
		blocks int64   // the log's GPU blocks
	}{{20000, 17.06, 1952}, {29000, 17.98, 1478}} {
		in := v0Run(t, tc.maxLen)
		p, err := report(in) // 29k does not start: the log's 1478 blocks hold 23,648 tokens
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Input.Limits.MaxPrefillTokens; got != tc.maxLen {
			t.Errorf("%d: max_num_batched_tokens = %d, want max_model_len %d (V0 without chunked prefill)", tc.maxLen, got, tc.maxLen)
		}
		act, want := int64(itemBytes(&p, "activation_peak")), int64(gib(tc.peak)-weights)
		t.Logf("%d: activation %.3f GiB, the log's %.3f (%+.1f %%)", tc.maxLen, float64(act)/float64(GiB), float64(want)/float64(GiB), pct(act, want))
		if !within(act, want, 0.02, 0) {
			t.Errorf("%d: activation %.2f GiB, the log's %.2f GiB (%+.1f %%)", tc.maxLen, float64(act)/float64(GiB), float64(want)/float64(GiB), pct(act, want))
		}
		in.Model.Weights.Bytes, in.Serving.VLLM.NonTorchBytes = weights, gib(0.35)
		if p, err = report(in); err != nil {
			t.Fatal(err)
		}
		if p.Fits != (tc.maxLen == 20000) {
			t.Errorf("%d: fits = %v; the log's run started at 20000 only", tc.maxLen, p.Fits)
		}
		t.Logf("%d: %d blocks with the log's weights and non-torch, the log's %d (%+.1f %%)", tc.maxLen, p.Engine.Pool.Blocks, tc.blocks, pct(p.Engine.Pool.Blocks, tc.blocks))
		if got := p.Engine.Pool.Blocks; !within(got, tc.blocks, 0.01, 0) {
			t.Errorf("%d: %d blocks with the log's weights and non-torch memory, the log's %d (%+.1f %%)", tc.maxLen, got, tc.blocks, pct(got, tc.blocks))
		}
		if p.Engine.Version != "vLLM 0.6 (V0 engine)" {
			t.Errorf("engine.version = %q", p.Engine.Version)
		}
	}
	p, err := Report(v0Run(t, 20000))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("KV tokens with the profile's estimates %d, the log's 31,232 (%+.1f %%)", p.Engine.Pool.Tokens, pct(p.Engine.Pool.Tokens, 31232))
	if got := p.Engine.Pool.Tokens; got < 31232 || !within(got, 31232, 0.07, 0) {
		t.Errorf("KV tokens with the profile's estimates = %d, the log's 31,232 (%+.1f %%); docs/architecture.md states +6.3 %%", got, pct(got, 31232))
	}
}

// TestVLLMV0Sampler: V0's profile run samples with top-k and top-p over the
// whole vocabulary after its forward pass, so at a short max_model_len the
// peak is the sampler's (256 rows × vocab × 38 B beside the 16-bit hidden
// states of every token), not the forward pass's.
func TestVLLMV0Sampler(t *testing.T) {
	in := v0Run(t, 4096)
	p, err := report(in)
	if err != nil {
		t.Fatal(err)
	}
	m := &in.Model
	want := Bytes(256*int64(m.VocabSize)*38 + 4096*int64(m.HiddenSize)*2)
	forward := Bytes(4096 * 2 * (3*int64(m.IntermediateSize) + 3*int64(m.HiddenSize)))
	if got := itemBytes(&p, "activation_peak"); got != want || forward >= want {
		t.Errorf("V0 at 4096 tokens: activation %d B, want the sampler's %d B (the forward pass's %d B is less)", got, want, forward)
	}
}

// report is Report with a plan that does not fit kept, as vLLM's refusal.
func report(in Input) (Plan, error) {
	p, err := Report(in)
	var f *Failure
	if errors.As(err, &f) {
		err = nil
	}
	return p, err
}

// TestSGLang044Run holds the 0.4 range's rules to issue 29's SGLang
// run: 0.4.4, gemma-3-4b-it with its vision tower on an H200 at
// --mem-fraction-static 0.88, "#tokens: 834615". No public thread with
// this log was found (the searches are listed in docs/architecture.md,
// "Engine releases", as the corpus's INDEX lists its own), so the figure
// is the issue's. 0.4 keeps every layer in the one full pool (no
// sliding-window pool) and charges the tower the checkpoint loads: the
// plan is +5.7 % where
// 0.5's rules give +28 %; the rest is not explained without the log.
func TestSGLang044Run(t *testing.T) {
	in := Input{Model: catalogModel(t, "gemma-3-4b-it-bf16"), Calibration: h200(t), Limits: Limits{MaxSeqLen: 131072},
		Serving: Serving{Engine: EngineSGLang, Version: "0.4.4", SGLang: SGLangOptions{MemFractionStatic: 0.88}}}
	p, err := Report(in)
	if err != nil {
		t.Fatal(err)
	}
	const real = 834615
	got := p.Engine.Pool.Tokens
	t.Logf("SGLang 0.4.4: %d tokens, the log's %d (%+.1f %%); weights %d MiB, vision tower %d MiB", got, real, pct(got, real),
		itemBytes(&p, "weights")/MiB, itemBytes(&p, "vision_tower")/MiB)
	if !within(got, real, 0.06, 0) || itemBytes(&p, "vision_tower") == 0 || p.Engine.Version != "SGLang 0.4.4" {
		t.Errorf("SGLang 0.4.4: %d tokens (%+.1f %% of the log's %d), vision tower %v, %q", got, pct(got, real), real,
			itemBytes(&p, "vision_tower"), p.Engine.Version)
	}
	in.Serving.Version = ""
	q, err := Report(in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SGLang 0.5 rules: %d tokens (%+.1f %%)", q.Engine.Pool.Tokens, pct(q.Engine.Pool.Tokens, real))
	if newer := q.Engine.Pool.Tokens; pct(newer, real) < 2*pct(got, real) {
		t.Errorf("0.5's rules give %d tokens (%+.1f %%), no farther than 0.4's %+.1f %%: the ranges do not differ", newer, pct(newer, real), pct(got, real))
	}
}

// TestReleaseDefaults: the defaults each range reads — gpu_memory_utilization,
// V1's batch by GPU and entry point with 0.9's A100 rule, V0's chunked
// prefill past 32k, SGLang 0.4's fraction by TP and 0.4.8's by GPU memory.
func TestReleaseDefaults(t *testing.T) {
	a100 := Calibration{Schema: CalibrationSchema, ID: "a100", GPU: "NVIDIA A100-SXM4-80GB", DeviceTotal: 80 * GiB}
	b200 := Calibration{Schema: CalibrationSchema, ID: "b200", GPU: "NVIDIA B200", DeviceTotal: 178 * GiB}
	for _, tc := range []struct {
		version      string
		llm          bool
		cal          Calibration
		maxLen       int
		seqs, tokens int
		util         float64
	}{
		{"0.6.3", false, a100, 8192, 256, 8192, 0.9},
		{"0.6.3", false, a100, 65536, 256, 2048, 0.9},
		// Before 0.8.5 (PR #17073) the larger defaults go to an H100 or H200 by name.
		{"0.8.4", false, a100, 8192, 256, 2048, 0.9},
		{"0.8.4", true, a100, 8192, 256, 8192, 0.9},
		{"0.8.4", false, h100(79.18), 8192, 1024, 8192, 0.9},
		{"0.8.4", false, b200, 8192, 256, 2048, 0.9},
		{"0.8.5", false, b200, 8192, 1024, 8192, 0.9},
		{"0.8.5", false, a100, 8192, 1024, 8192, 0.9},
		{"0.8.5", true, a100, 8192, 1024, 16384, 0.9},
		{"0.9.2", false, a100, 8192, 256, 2048, 0.9},
		{"0.9.2", true, a100, 8192, 256, 8192, 0.9},
		{"0.21.0", false, h100(79.18), 8192, 1024, 8192, 0.9},
		{"", false, h100(79.18), 8192, 1024, 8192, 0.92},
	} {
		in := Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"), Calibration: tc.cal, Limits: Limits{MaxSeqLen: tc.maxLen},
			Serving: Serving{Engine: EngineVLLM, Version: tc.version, VLLM: VLLMOptions{LLMClass: tc.llm}}}
		p, err := Report(in)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.version, tc.llm, err)
		}
		l := p.Input.Limits
		if l.MaxBatch != tc.seqs || l.MaxPrefillTokens != tc.tokens || p.Engine.Pool.Fraction != tc.util {
			t.Errorf("vLLM %q (LLM class %v) on %s at %d: max_num_seqs %d, max_num_batched_tokens %d, utilization %v; want %d, %d, %v",
				tc.version, tc.llm, tc.cal.GPU, tc.maxLen, l.MaxBatch, l.MaxPrefillTokens, p.Engine.Pool.Fraction, tc.seqs, tc.tokens, tc.util)
		}
	}
	for _, tc := range []struct {
		tp   int
		want float64
	}{{1, 0.88}, {2, 0.87}, {4, 0.85}, {8, 0.81}} {
		in := Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"), Calibration: h200(t), Limits: Limits{MaxSeqLen: 8192},
			Serving: Serving{Engine: EngineSGLang, Version: "0.4.4"}}
		if tc.tp > 1 {
			in.Rank = &Rank{Layout: Parallel{Tensor: tc.tp}}
		}
		if got := memFractionStatic(&in); got != tc.want {
			t.Errorf("SGLang 0.4.4 at TP %d: mem_fraction_static %v, want %v", tc.tp, got, tc.want)
		}
	}
	// From 0.4.8 (PR #7054): round((gpu − reserve) / gpu, 3), the reserve
	// (2.8 + TP / 10) GiB below 35 GiB and (9.5 + TP / 2) GiB below 90.
	for _, tc := range []struct {
		version string
		mib     Bytes
		tp      int
		want    float64
	}{{"0.4.7", 16303, 1, 0.88}, {"0.4.8", 16303, 1, 0.818}, {"0.4.9", 16303, 1, 0.818}, {"0.4.10", 80 << 10, 4, 0.856}} {
		in := Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"), Limits: Limits{MaxSeqLen: 8192},
			Calibration: Calibration{Schema: CalibrationSchema, ID: "card", GPU: "card", DeviceTotal: tc.mib * MiB},
			Serving:     Serving{Engine: EngineSGLang, Version: tc.version}}
		if tc.tp > 1 {
			in.Rank = &Rank{Layout: Parallel{Tensor: tc.tp}}
		}
		if got := memFractionStatic(&in); got != tc.want {
			t.Errorf("SGLang %s on %d MiB at TP %d: mem_fraction_static %v, want %v", tc.version, tc.mib, tc.tp, got, tc.want)
		}
	}
}

// TestVLLMHybridManager: a model that mixes sliding-window and full
// attention keeps its window under the hybrid KV-cache manager (0.9.1 on,
// vLLM PR #17996) and is charged full-length blocks in every layer before it.
func TestVLLMHybridManager(t *testing.T) {
	m := catalogModel(t, "gemma-3-4b-it-bf16")
	conc := map[string]float64{}
	for _, v := range []string{"0.6.3", "0.9.0", "0.9.1"} {
		in := Input{Model: m, Calibration: h100(79.18), Limits: Limits{MaxSeqLen: 32768},
			Serving: Serving{Engine: EngineVLLM, Version: v, VLLM: VLLMOptions{GPUMemoryUtilization: 0.9}}}
		p, err := Report(in)
		if err != nil {
			t.Fatal(err)
		}
		conc[v] = p.Engine.Pool.MaxConcurrency
		if windows := len(vllmGeometry(&p.Input, 16).windows) > 0; windows != (v == "0.9.1") {
			t.Errorf("vLLM %s: sliding-window groups %v, want them from 0.9.1 only", v, windows)
		}
	}
	if !(conc["0.9.1"] > 2*conc["0.9.0"]) {
		t.Errorf("concurrency at 32k by release = %v: want 0.9.1's windows to hold far more than 0.9.0's full-length layers", conc)
	}
}

// TestVLLMSamplerLastStage: V1 warms the sampler up on the pipeline's
// last stage alone (GPUModelRunner.profile_run), so an earlier stage's
// activation peak is the forward pass's hidden states only.
func TestVLLMSamplerLastStage(t *testing.T) {
	in := Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"), Calibration: h200(t), Limits: Limits{MaxSeqLen: 8192},
		Parallel: Parallel{Pipeline: 2}, Serving: Serving{Engine: EngineVLLM}}
	p, err := Report(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout == nil || len(p.Layout.Ranks) != 2 {
		t.Fatalf("PP 2: %v ranks, want 2", p.Layout)
	}
	first, last := itemBytes(&p.Layout.Ranks[0].Plan, "activation_peak"), itemBytes(&p.Layout.Ranks[1].Plan, "activation_peak")
	// vllm serve on a GPU of 70 GiB or more: 1024 rows of logits, the
	// newest rules' Triton path (14 B an entry) and its buffer of SM rows.
	sampler := Bytes((1024*14 + 4*int64(in.Calibration.SMCount)) * int64(in.Model.VocabSize))
	if last-first != sampler {
		t.Errorf("activation peak: stage 0 %d B, stage 1 %d B; want them %d B apart, the sampler's warm-up", first, last, sampler)
	}
}

// TestPlannedAs: a plan of a release the rules were not read at names that
// release beside the rules' ("vLLM 0.29.0, by the rules read at vLLM 0.22
// (V1 engine)"), and a plan that named no release names the rules alone.
func TestPlannedAs(t *testing.T) {
	cases := []struct {
		e    EngineReport
		want string
	}{
		{EngineReport{Engine: EngineVLLM, Version: VLLMVersion}, VLLMVersion},
		{EngineReport{Engine: EngineVLLM, Version: VLLMVersion, Release: "0.29.0"}, "vLLM 0.29.0, by the rules read at " + VLLMVersion},
		{EngineReport{Engine: EngineSGLang, Version: SGLangVersion, Release: "0.5.10.post1"}, "SGLang 0.5.10.post1, by the rules read at " + SGLangVersion},
	}
	for _, c := range cases {
		if got := PlannedAs(&c.e); got != c.want {
			t.Errorf("PlannedAs(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}
