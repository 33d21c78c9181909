package planner_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// gpusInput is a catalog model at 32k tokens under an engine, on no GPU in
// particular, and the calibration table.
func gpusInput(t testing.TB, model string, engine planner.EngineName) (planner.Input, []planner.Calibration) {
	t.Helper()
	m, err := catalog.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	cals, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Model: m, Limits: planner.Limits{MaxSeqLen: 32768}, Serving: planner.Serving{Engine: engine}}
	return in, cals
}

// on is in on c in layout p, as a person plans that row.
func on(in planner.Input, c planner.Calibration, p planner.Parallel) planner.Input {
	in.Calibration, in.Parallel = c, planner.Parallel{}
	if p.GPUs() > 1 {
		in.Parallel = p
	}
	return in
}

func calibrationByID(cals []planner.Calibration, id string) planner.Calibration {
	for _, c := range cals {
		if c.ID == id {
			return c
		}
	}
	return planner.Calibration{}
}

// TestGPUsRowsArePlans checks, under every engine, that each row is what
// planning its GPU and layout reports: it fits, with the row's headroom,
// KV tokens, concurrency and launch command, on the fewest GPUs MinGPUs
// finds, and that a card no layout serves is one MinGPUs finds none for.
func TestGPUsRowsArePlans(t *testing.T) {
	for _, e := range planner.Engines {
		for _, model := range []string{"llama-3.3-70b-instruct-fp8", "qwen3-30b-a3b-q4_k_m", "qwen3-8b-q8_0"} {
			in, cals := gpusInput(t, model, e)
			fits, err := planner.GPUs(in, cals)
			if err != nil {
				t.Fatalf("GPUs(%s, %s): %v", model, e, err)
			}
			if len(fits) != len(cals) {
				t.Fatalf("GPUs(%s, %s) returned %d rows for %d calibrations", model, e, len(fits), len(cals))
			}
			for _, f := range fits {
				checkRow(t, in, calibrationByID(cals, f.Calibration), f)
			}
		}
	}
}

func checkRow(t *testing.T, in planner.Input, c planner.Calibration, f planner.GPUFit) {
	t.Helper()
	name := in.Model.ID + " " + string(in.Serving.Engine) + " on " + f.Calibration
	n, err := planner.MinGPUs(on(in, c, planner.Parallel{}))
	if err != nil {
		t.Fatalf("%s: MinGPUs: %v", name, err)
	}
	if n.GPUs != f.GPUs {
		t.Errorf("%s: GPUs = %d, MinGPUs = %d", name, f.GPUs, n.GPUs)
	}
	if !f.Fits() {
		return
	}
	p, err := planner.Report(on(in, c, f.Parallel))
	if err != nil {
		t.Fatalf("%s at %v: Report: %v", name, f.Parallel, err)
	}
	b := &p
	if p.Layout != nil {
		for i := range p.Layout.Ranks {
			if p.Layout.Ranks[i].Ranks[0] == p.Layout.Binding {
				b = &p.Layout.Ranks[i].Plan
			}
		}
	}
	if b.Headroom != f.Headroom || b.Budget != f.Budget {
		t.Errorf("%s: headroom %v of %v, the plan's %v of %v", name, f.Headroom, f.Budget, b.Headroom, b.Budget)
	}
	if b.PoolTakesRest() != f.PoolTakesRest {
		t.Errorf("%s: PoolTakesRest %v, the plan's %v", name, f.PoolTakesRest, b.PoolTakesRest())
	}
	if kv := b.KV.Blocks * int64(b.KV.BlockTokens); kv != f.KVTokens {
		t.Errorf("%s: KV tokens %d, the plan's %d", name, f.KVTokens, kv)
	}
	if p.Capacity.MaxSeqsAtMaxLen != f.Concurrency {
		t.Errorf("%s: concurrency %d, the plan's %d", name, f.Concurrency, p.Capacity.MaxSeqsAtMaxLen)
	}
	if b.Engine != nil && b.Engine.Launch != f.Launch {
		t.Errorf("%s: launch %q, the plan's %q", name, f.Launch, b.Engine.Launch)
	}
	if f.Label != c.Kind() || f.DeviceTotal != c.DeviceTotal || f.GPU != c.GPU {
		t.Errorf("%s: label %q, total %v, gpu %q; the calibration's %q, %v, %q", name, f.Label, f.DeviceTotal, f.GPU, c.Kind(), c.DeviceTotal, c.GPU)
	}
}

// TestGPUsTensorFirst checks that each multi-GPU row uses the largest
// tensor-parallel size of at most eight that fits its count of GPUs.
func TestGPUsTensorFirst(t *testing.T) {
	in, cals := gpusInput(t, "llama-3.3-70b-instruct-fp8", planner.EngineVLLM)
	fits, err := planner.GPUs(in, cals)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fits {
		for tp := f.Parallel.Tensor + 1; tp <= min(f.GPUs, 8); tp++ {
			if f.GPUs%tp != 0 {
				continue
			}
			p := planner.Parallel{Tensor: tp, Pipeline: f.GPUs / tp}
			if pl, err := planner.PlanMemory(on(in, calibrationByID(cals, f.Calibration), p)); err == nil && pl.Fits {
				t.Errorf("%s: %d GPUs as %v, but %v fits too", f.Calibration, f.GPUs, f.Parallel, p)
			}
		}
	}
}

// TestGPUsOrder checks the rows' order: fewest GPUs, then most headroom,
// then most KV tokens, cards no layout serves last.
func TestGPUsOrder(t *testing.T) {
	for _, e := range []planner.EngineName{planner.EngineSeed, planner.EngineVLLM} {
		in, cals := gpusInput(t, "llama-3.3-70b-instruct-bf16", e)
		cals = append(cals, tiny())
		fits, err := planner.GPUs(in, cals)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(fits); i++ {
			a, b := fits[i-1], fits[i]
			key := func(f planner.GPUFit) [3]int64 {
				if !f.Fits() {
					return [3]int64{1 << 62}
				}
				return [3]int64{int64(f.GPUs), -int64(f.Headroom), -f.KVTokens}
			}
			ka, kb := key(a), key(b)
			if ka[0] > kb[0] || ka[0] == kb[0] && (ka[1] > kb[1] || ka[1] == kb[1] && ka[2] > kb[2]) {
				t.Errorf("%s: row %d (%s, %d GPUs, %v, %d tokens) before row %d (%s, %d GPUs, %v, %d tokens)",
					e, i-1, a.Calibration, a.GPUs, a.Headroom, a.KVTokens, i, b.Calibration, b.GPUs, b.Headroom, b.KVTokens)
			}
		}
	}
}

// tiny is a GPU of 1 GiB: the driver's charges leave it less than one
// layer of a 70B model.
func tiny() planner.Calibration {
	return planner.Calibration{Schema: planner.CalibrationSchema, ID: "tiny", GPU: "tiny", DeviceTotal: planner.GiB,
		Context: 512 * planner.MiB, LibraryReserve: 64 * planner.MiB}
}

// TestGPUsTooSmall checks that a card too small even for one layer says
// so, and that no card said to be too small has a layout MinGPUs finds:
// DeepSeek-V3 at 256 sequences of 131,072 tokens, whose one layer's KV
// alone outgrows the smaller cards.
func TestGPUsTooSmall(t *testing.T) {
	in, _ := gpusInput(t, "llama-3.3-70b-instruct-fp8", planner.EngineSeed)
	fits, err := planner.GPUs(in, []planner.Calibration{tiny()})
	if err != nil {
		t.Fatal(err)
	}
	if f := fits[0]; f.Fits() || !f.TooSmall {
		t.Errorf("GPUs(70B on 1 GiB) = %+v, want no fit and TooSmall", f)
	}
	for _, e := range []planner.EngineName{planner.EngineSeed} { // vLLM starts once one request fits: every card does
		in, cals := gpusInput(t, "deepseek-v3-fp8", e)
		in.Limits.MaxSeqLen, in.Limits.MaxBatch = 131072, 256
		fits, err := planner.GPUs(in, cals)
		if err != nil {
			t.Fatal(err)
		}
		small := 0
		for _, f := range fits {
			if !f.TooSmall {
				continue
			}
			small++
			if n, err := planner.MinGPUs(on(in, calibrationByID(cals, f.Calibration), planner.Parallel{})); err != nil || n.GPUs != 0 {
				t.Errorf("%s: %s is too small, but MinGPUs finds %d GPUs (%v)", e, f.Calibration, n.GPUs, err)
			}
		}
		if small == 0 {
			t.Errorf("%s: no card is too small for DeepSeek-V3 at 256 × 131,072 tokens", e)
		}
	}
}

func TestGPUsBadInput(t *testing.T) {
	in, cals := gpusInput(t, "qwen3-8b-q8_0", planner.EngineVLLM)
	in.Limits.MaxSeqLen = -1
	_, err := planner.GPUs(in, cals)
	var ie *planner.InputError
	if !errors.As(err, &ie) || ie.Field != "limits.max_seq_len" {
		t.Errorf("GPUs(max_seq_len -1) error = %v, want an *InputError naming limits.max_seq_len", err)
	}
	if fits, err := planner.GPUs(in, nil); err != nil || len(fits) != 0 {
		t.Errorf("GPUs(no calibrations) = %v, %v; want no rows and no error", fits, err)
	}
}

// BenchmarkGPUs is the issue's table: Llama-3.3-70B FP8 at 32k tokens
// under vLLM on every calibration, each with its fewest-GPUs search.
func BenchmarkGPUs(b *testing.B) {
	in, cals := gpusInput(b, "llama-3.3-70b-instruct-fp8", planner.EngineVLLM)
	for b.Loop() {
		if _, err := planner.GPUs(in, cals); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGPUsSeed is the same table under vramplan's own engine, the
// page's default.
func BenchmarkGPUsSeed(b *testing.B) {
	in, cals := gpusInput(b, "llama-3.3-70b-instruct-fp8", planner.EngineSeed)
	for b.Loop() {
		if _, err := planner.GPUs(in, cals); err != nil {
			b.Fatal(err)
		}
	}
}

// The GPUs of the calibration table that serve Llama-3.3-70B in FP8 at
// 32k tokens under vLLM, fewest first: the cards of 80 GB and more, the
// rest by how many of them it takes, in which layout.
func ExampleGPUs() {
	m, _ := catalog.Lookup("llama-3.3-70b-instruct-fp8")
	cals, _ := calibrations.All()
	in := planner.Input{Model: m, Limits: planner.Limits{MaxSeqLen: 32768}, Serving: planner.Serving{Engine: planner.EngineVLLM}}
	fits, err := planner.GPUs(in, cals)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range fits[:4] {
		fmt.Printf("%s: %d × %s (%s), %d KV tokens, %d at once\n", f.Calibration, f.GPUs, f.Parallel, f.Label, f.KVTokens, f.Concurrency)
	}
	// Output:
	// est-b200-linux: 1 × tensor_parallel 1 × pipeline_parallel 1 (estimated), 304544 KV tokens, 9 at once
	// h200-linux-cuda13.0: 1 × tensor_parallel 1 × pipeline_parallel 1 (measured), 188352 KV tokens, 5 at once
	// est-gb10-linux: 1 × tensor_parallel 1 × pipeline_parallel 1 (estimated), 133376 KV tokens, 4 at once
	// est-h100-nvl-linux: 1 × tensor_parallel 1 × pipeline_parallel 1 (estimated), 47264 KV tokens, 1 at once
}

// TestGPUsPoolHeadroom checks which rows have a headroom worth showing:
// under vLLM and SGLang the KV pool takes what the memory fraction leaves,
// so every fitting row says so (and has no headroom to speak of: less than
// a MiB); under llama.cpp and vramplan's own engine none does; and vLLM
// with a fixed KV cache (--kv-cache-memory-bytes) leaves a headroom again.
func TestGPUsPoolHeadroom(t *testing.T) {
	fixed := func(in *planner.Input) { in.Serving.VLLM.KVCacheMemoryBytes = 4 * planner.GiB }
	for _, tt := range []struct {
		engine planner.EngineName
		set    func(*planner.Input)
		want   bool
	}{
		{planner.EngineVLLM, nil, true},
		{planner.EngineSGLang, nil, true},
		{planner.EngineLlamaCpp, nil, false},
		{planner.EngineSeed, nil, false},
		{planner.EngineVLLM, fixed, false},
	} {
		in, cals := gpusInput(t, "qwen3-8b-q8_0", tt.engine)
		if tt.set != nil {
			tt.set(&in)
		}
		fits, err := planner.GPUs(in, cals)
		if err != nil {
			t.Fatalf("GPUs(%s): %v", tt.engine, err)
		}
		n := 0
		for _, f := range fits {
			if !f.Fits() {
				continue
			}
			n++
			if f.PoolTakesRest != tt.want {
				t.Errorf("%s (fixed KV %v) on %s: PoolTakesRest %v, want %v", tt.engine, tt.set != nil, f.Calibration, f.PoolTakesRest, tt.want)
			}
			if f.PoolTakesRest && f.Headroom >= planner.MiB {
				t.Errorf("%s on %s: headroom %v, though the KV pool takes what is left", tt.engine, f.Calibration, f.Headroom)
			}
		}
		if n == 0 {
			t.Errorf("%s: no GPU fits", tt.engine)
		}
	}
}
