package planner

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkLayoutLever applies a layout lever and checks that it fits.
func checkLayoutLever(t *testing.T, i int, in Input, l Lever) {
	t.Helper()
	var n int
	switch l.Knob {
	case KnobTensorParallel:
		in.Parallel.Tensor = atoi(t, l.To)
	case KnobPipelineParallel:
		in.Parallel.Pipeline = atoi(t, l.To)
	case KnobGPUs:
		c, err := MinGPUs(in)
		if err != nil || !strings.HasPrefix(l.To, itoa(c.GPUs)+" ") {
			t.Fatalf("input %d: lever gpus -> %s, MinGPUs = %+v, %v", i, l.To, c, err)
		}
		in.Parallel, n = c.Parallel, c.GPUs
	}
	p, err := PlanMemory(in)
	if !p.Fits || !l.Fits {
		t.Fatalf("input %d: lever %s -> %s (%d GPUs) says fits %v; applied: fits %v, %v", i, l.Knob, l.To, n, l.Fits, p.Fits, err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("%q is not a number", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestStageLayers checks vLLM's get_pp_indices split against the examples
// its docstring and tests give.
func TestStageLayers(t *testing.T) {
	for _, c := range []struct {
		layers, pp int
		want       [][2]int
	}{
		{32, 2, [][2]int{{0, 16}, {16, 32}}},
		{61, 4, [][2]int{{0, 15}, {15, 30}, {30, 46}, {46, 61}}}, // remainder 1: partitions[-2] gets it
		{10, 4, [][2]int{{0, 2}, {2, 5}, {5, 8}, {8, 10}}},       // remainder 2: [-2] and [-3]
		{7, 4, [][2]int{{0, 2}, {2, 4}, {4, 6}, {6, 7}}},         // remainder 3: all but the last
		{4, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
	} {
		for s, w := range c.want {
			if a, b := stageLayers(c.layers, c.pp, s); a != w[0] || b != w[1] {
				t.Errorf("stageLayers(%d, %d, %d) = [%d, %d), want [%d, %d)", c.layers, c.pp, s, a, b, w[0], w[1])
			}
		}
	}
}

// TestLocalExperts checks fused_moe's remainder rule and that the ranks
// hold every expert exactly once.
func TestLocalExperts(t *testing.T) {
	for _, c := range []struct{ e, ep, rank, want int }{
		{128, 3, 0, 43}, {128, 3, 1, 43}, {128, 3, 2, 42}, {256, 8, 7, 32}, {8, 8, 3, 1}, {10, 4, 1, 3}, {10, 4, 2, 2},
	} {
		if got := localExperts(c.e, c.ep, c.rank); got != c.want {
			t.Errorf("localExperts(%d, %d, %d) = %d, want %d", c.e, c.ep, c.rank, got, c.want)
		}
	}
}

// layoutModel is a Llama-3-8B-shaped model with weight classes, the
// geometry the per-rank rules read.
func layoutModel() Model {
	return Model{ID: "llama-like", HiddenSize: 4096, VocabSize: 128256, IntermediateSize: 14336, QueryHeads: 32,
		Layers: []LayerGroup{{Count: 32, Layer: Layer{Kind: LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}}},
		Weights: Weights{Bytes: 16060522496, Source: SourceExact, Dtype: "bf16", Classes: []WeightClass{
			{Class: "embedding", Bytes: 1050673152, Params: 525336576}, {Class: "attention", Bytes: 2684354560, Params: 1342177280}, {Class: "ffn", Bytes: 11274289152, Params: 5637144576},
			{Class: "norm", Bytes: 532480, Params: 266240}, {Class: "output", Bytes: 1050673152, Params: 525336576}}}}
}

func layoutInput(p Parallel) Input {
	return Input{Model: layoutModel(), Limits: Limits{MaxBatch: 8, MaxSeqLen: 4096},
		Calibration: Calibration{Schema: CalibrationSchema, ID: "h100", DeviceTotal: 80 * GiB, Context: 500 * MiB},
		Parallel:    p}
}

// TestLayoutErrors checks that a layout the engines refuse is an input
// error naming the field.
func TestLayoutErrors(t *testing.T) {
	moe := layoutInput(Parallel{})
	moe.Model.MoE = &MoE{Experts: 4, ExpertsUsed: 2, IntermediateSize: 1024}
	for _, c := range []struct {
		name  string
		in    Input
		field string
	}{
		{"heads", layoutInput(Parallel{Tensor: 3}), "parallel.tensor_parallel"},
		{"kv heads", layoutInput(Parallel{Tensor: 64, Pipeline: 1}), "parallel.tensor_parallel"},
		{"stages", layoutInput(Parallel{Pipeline: 33}), "parallel.pipeline_parallel"},
		{"no experts", layoutInput(Parallel{Tensor: 2, Expert: 2}), "parallel.expert_parallel"},
		{"experts < ep", func() Input { in := moe; in.Parallel = Parallel{Tensor: 8, Expert: 8}; return in }(), "parallel.expert_parallel"},
		{"ep shape", func() Input { in := moe; in.Parallel = Parallel{Tensor: 4, Expert: 3}; return in }(), "parallel.expert_parallel"},
		{"calibrations", layoutInput(Parallel{Tensor: 2, Calibrations: make([]Calibration, 3)}), "parallel.calibrations"},
		{"negative", layoutInput(Parallel{Data: -1}), "parallel.data_parallel"},
		{"negative tensor", layoutInput(Parallel{Tensor: -2}), "parallel.tensor_parallel"},
		{"too many stages", layoutInput(Parallel{Pipeline: MaxParallel + 1}), "parallel.pipeline_parallel"},
		{"rank comm", func() Input {
			in := layoutInput(Parallel{Tensor: 2})
			in.Parallel.Calibrations = []Calibration{in.Calibration, in.Calibration}
			in.Parallel.Calibrations[1].Comm = []CommCost{{GroupRanks: 0, Bytes: MiB}}
			return in
		}(), "parallel.calibrations[1].comm[0]"},
	} {
		_, err := Report(c.in)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%s: Report = %v, want an input error on %s", c.name, err, c.field)
		}
	}
}

// TestVLLMLlama3TP2 is vLLM PR #10511's published figure: Meta-Llama-3-8B
// loads 14.96 GiB of weights at TP1 and 7.48 GiB per rank at TP2 (H100).
// The figures are printed to 0.01 GiB, so the tolerance is half of that.
func TestVLLMLlama3TP2(t *testing.T) {
	for _, c := range []struct {
		tp   int
		want float64
	}{{1, 14.96}, {2, 7.48}} {
		p, err := PlanMemory(layoutInput(Parallel{Tensor: c.tp}))
		if err != nil {
			t.Fatal(err)
		}
		rp, _ := p.RankPlanOf(c.tp - 1)
		if got := float64(rp.Weights) / float64(GiB); got < c.want-0.005 || got > c.want+0.005 {
			t.Errorf("TP%d: weights per rank %.4f GiB, want %.2f ± 0.005", c.tp, got, c.want)
		}
	}
}

// TestReplicationWall checks that KV per rank stops shrinking at tp = kv_heads
// and that MLA's latent is not split.
func TestReplicationWall(t *testing.T) {
	kv := func(tp int) Bytes {
		p, err := PlanMemory(layoutInput(Parallel{Tensor: tp}))
		if err != nil {
			t.Fatal(err)
		}
		return p.KV.BytesPerToken
	}
	if a, b, c := kv(4), kv(8), kv(16); a != 2*b || b != c {
		t.Errorf("KV per token at TP 4, 8, 16 = %v, %v, %v; want halving to TP 8 (8 KV heads), then flat", a, b, c)
	}
	in := layoutInput(Parallel{})
	in.Model.Layers = []LayerGroup{{Count: 32, Layer: Layer{Kind: LayerMLA, LatentDim: 576}}}
	one, _ := PlanMemory(in)
	in.Parallel.Tensor = 8
	eight, _ := PlanMemory(in)
	if one.KV.BytesPerToken != eight.KV.BytesPerToken {
		t.Errorf("MLA KV per token %v at TP1, %v at TP8; the latent is not split", one.KV.BytesPerToken, eight.KV.BytesPerToken)
	}
}

// TestPipelineStages checks the embedding on the first stage, the LM head
// on the last, and each stage charged its own layers' KV.
func TestPipelineStages(t *testing.T) {
	p, err := PlanMemory(layoutInput(Parallel{Pipeline: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Layout.Ranks) != 2 {
		t.Fatalf("%d distinct ranks, want 2", len(p.Layout.Ranks))
	}
	first, last := p.Layout.Ranks[0].Plan, p.Layout.Ranks[1].Plan
	if classBytes(&first.Input.Model, "output") != 0 || classBytes(&last.Input.Model, "embedding") != 0 {
		t.Errorf("embedding or LM head on the wrong stage: %+v / %+v", first.Input.Model.Weights.Classes, last.Input.Model.Weights.Classes)
	}
	one, _ := PlanMemory(layoutInput(Parallel{}))
	if 2*first.KV.BytesPerToken != one.KV.BytesPerToken {
		t.Errorf("stage KV per token %v, want half of %v", first.KV.BytesPerToken, one.KV.BytesPerToken)
	}
}

// TestLayoutDocument checks that a layout plan's document reproduces, and
// that every single-GPU document stays a valid plan/v1 document.
func TestLayoutDocument(t *testing.T) {
	p, _ := Report(layoutInput(Parallel{Tensor: 2, Pipeline: 2, Data: 2}))
	q, err := ParsePlan(p.JSON())
	if err != nil {
		t.Fatalf("ParsePlan(layout plan) = %v", err)
	}
	if !bytes.Equal(q.JSON(), p.JSON()) {
		t.Error("a layout plan does not survive a round trip")
	}
	if p.Layout.GPUs != 8 || len(p.Layout.Ranks) != 2 || len(p.Layout.Ranks[0].Ranks) != 4 {
		t.Errorf("layout %d GPUs, %d distinct ranks; want 8 GPUs, 2 distinct (stages) of 4 ranks", p.Layout.GPUs, len(p.Layout.Ranks))
	}
	for r := 0; r < 8; r++ {
		rp, ok := p.RankPlanOf(r)
		if !ok || rp.Input.Rank.Stage != (r/2)%2 {
			t.Errorf("RankPlanOf(%d) = stage %v, %v", r, rp.Input.Rank, ok)
		}
		if _, err := ParsePlan(rp.JSON()); err != nil {
			t.Errorf("rank %d's plan does not parse alone: %v", r, err)
		}
	}
	single, _ := Report(layoutInput(Parallel{}))
	if single.Layout != nil || bytes.Contains(single.JSON(), []byte(`"parallel"`)) {
		t.Error("a single-GPU plan carries a layout")
	}
}

// TestWeightsLeverNamesLayout checks that a model whose weights exceed one
// GPU gets the tensor-parallel lever and the fewest GPUs.
func TestWeightsLeverNamesLayout(t *testing.T) {
	in := layoutInput(Parallel{})
	in.Budget = 12 * GiB
	p, _ := Report(in)
	if p.Fits || len(p.Levers) == 0 || p.Levers[0].Knob != KnobTensorParallel || p.Levers[0].To != "2" || !p.Levers[0].Fits {
		t.Fatalf("levers %+v; want tensor_parallel 1 -> 2 first", p.Levers)
	}
	c, err := MinGPUs(in)
	if err != nil || c.GPUs != 2 {
		t.Errorf("MinGPUs = %+v, %v; want 2", c, err)
	}
}

// randomLayout draws a layout; many are invalid for the model, on purpose.
func randomLayout(r *rand.Rand) Parallel {
	sizes := []int{0, 1, 2, 3, 4, 8, 16}
	p := Parallel{Tensor: sizes[r.IntN(len(sizes))], Pipeline: sizes[r.IntN(5)], Data: sizes[r.IntN(3)]}
	if r.IntN(3) == 0 {
		p.Expert = sizes[r.IntN(len(sizes))]
	}
	return p
}

// TestLayoutProperties checks random layouts of random inputs: no panic,
// only input errors naming a field, per-rank sufficiency, the top-level
// sums, determinism and the round trip.
func TestLayoutProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	planned := 0
	for i := 0; i < 1500; i++ {
		in := randomInput(r)
		in.Parallel = randomLayout(r)
		p, err := Report(in)
		var ie *InputError
		if errors.As(err, &ie) {
			continue
		}
		planned++
		checkLayoutSums(t, i, &p)
		q, _ := Report(in)
		if !bytes.Equal(p.JSON(), q.JSON()) {
			t.Fatalf("input %d: Report is not deterministic", i)
		}
		if _, err := ParsePlan(p.JSON()); err != nil {
			t.Fatalf("input %d: ParsePlan = %v", i, err)
		}
	}
	if planned < 300 {
		t.Errorf("only %d of 1500 random layouts planned; the generator no longer reaches valid ones", planned)
	}
}

func checkLayoutSums(t *testing.T, i int, p *Plan) {
	t.Helper()
	checkSums(t, i, p)
	if p.Layout == nil {
		return
	}
	var total Bytes
	fits, n := true, 0
	for _, rp := range p.Layout.Ranks {
		q := &rp.Plan
		if q.Fits && q.Total > q.Budget {
			t.Fatalf("input %d: rank %v fits with %d over %d", i, rp.Ranks, q.Total, q.Budget)
		}
		fits = fits && q.Fits
		total = satAdd(total, satMul(int64(q.Total), int64(len(rp.Ranks))))
		n += len(rp.Ranks)
	}
	if fits != p.Fits || total != p.Total || n != p.Layout.GPUs {
		t.Fatalf("input %d: top fits %v total %d over %d GPUs; ranks say %v, %d, %d", i, p.Fits, p.Total, p.Layout.GPUs, fits, total, n)
	}
}

// FuzzLayout plans fuzzed layouts of a real shape: never a panic, and a
// refused layout is an input error naming a parallel field (or, for
// llama.cpp's -sm tensor, the model field it cannot split). kind picks the
// model's variant, the llama.cpp profile (kind/3 odd), and -ts shares from
// its higher bits (kind/6 odd).
func FuzzLayout(f *testing.F) {
	f.Add(2, 1, 1, 1, 0)
	f.Add(8, 2, 1, 1, 1)
	f.Add(3, 33, 7, -1, 2)
	f.Add(3, 1, 1, 1, 3)   // llama.cpp -sm tensor over 3 GPUs
	f.Add(2, 1, 1, 1, 129) // -ts 1,1 (kind 6·21 + 3)
	f.Add(4, 1, 1, 1, 142) // a MoE under -ts 1,1,3,2 (6·23 + 4)
	f.Add(16, 1, 1, 1, 3)
	f.Fuzz(func(t *testing.T, tp, pp, ep, dp, kind int) {
		in := layoutInput(Parallel{Tensor: clampInt(int64(tp)), Pipeline: clampInt(int64(pp)),
			Expert: clampInt(int64(ep)), Data: clampInt(int64(dp))})
		k := uint(kind)
		switch k % 3 {
		case 1:
			in.Model.MoE = &MoE{Experts: 64, ExpertsUsed: 8, IntermediateSize: 1024}
		case 2:
			in.Model.Layers[0].Layer = Layer{Kind: LayerMLA, LatentDim: 576}
		}
		if k/3%2 == 1 {
			in.Serving.Engine = EngineLlamaCpp
		}
		if n := in.Parallel.Tensor; k/6%2 == 1 && n > 1 && n < 16 {
			for i := range n {
				in.Parallel.TensorSplit = append(in.Parallel.TensorSplit, float64(1+(k>>(4+i))%4))
			}
		}
		p, err := Report(in)
		var ie *InputError
		if errors.As(err, &ie) {
			if !strings.HasPrefix(ie.Field, "parallel") && !strings.Contains(ie.Msg, "-sm tensor") {
				t.Fatalf("input error on %s for a layout change: %s", ie.Field, ie.Msg)
			}
			return
		}
		checkLayoutSums(t, 0, &p)
	})
}

// budgetAndLayoutOnly reports whether ls holds only layout levers and the
// budget lever, the budget last: what a report offers when no limit or
// feature can fit the weights.
func budgetAndLayoutOnly(ls []Lever) bool {
	if len(ls) == 0 || ls[len(ls)-1].Knob != KnobBudget {
		return false
	}
	for _, l := range ls[:len(ls)-1] {
		if !layoutKnob(l.Knob) || !l.Fits {
			return false
		}
	}
	return true
}

// TestPipelineClassLayers: a pipeline stage holds a class's share of the
// layers of the class's progression it runs, not of all its layers.
func TestPipelineClassLayers(t *testing.T) {
	in := layoutInput(Parallel{Pipeline: 2})
	w := &in.Model.Weights
	const experts = 31 << 30 // 1 GiB a layer over layers 1–31
	w.Classes = append(w.Classes, WeightClass{Class: "experts", Bytes: experts, Params: experts / 2, From: 1, Until: 32, Step: 1})
	w.Bytes += experts
	p, err := PlanMemory(in)
	if err != nil {
		t.Fatal(err)
	}
	first, last := p.Layout.Ranks[0].Plan, p.Layout.Ranks[1].Plan
	if got := classBytes(&first.Input.Model, "experts"); got != 15<<30 {
		t.Errorf("stage 0 (layers 0–15) holds %v of experts, want 15 GiB (layers 1–15)", got)
	}
	if got := classBytes(&last.Input.Model, "experts"); got != 16<<30 {
		t.Errorf("stage 1 (layers 16–31) holds %v of experts, want 16 GiB", got)
	}
}

func TestProgression(t *testing.T) {
	c := WeightClass{From: 1, Until: 27, Step: 2} // 1, 3, …, 25
	for _, tc := range []struct{ lo, hi, want int }{{0, 27, 13}, {0, 14, 7}, {14, 27, 6}, {1, 2, 1}, {2, 3, 0}, {26, 40, 0}, {5, 5, 0}} {
		if got := progression(&c, tc.lo, tc.hi); got != int64(tc.want) {
			t.Errorf("progression(1..27 by 2, [%d, %d)) = %d, want %d", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestClassLayersBounds: a class's layers are a progression or none.
func TestClassLayersBounds(t *testing.T) {
	for _, c := range []WeightClass{{From: 3}, {From: 2, Until: 2, Step: 1}, {Until: maxLayers + 1, Step: 1}, {From: -1, Until: 4, Step: 1}, {Until: 4, Step: -1}} {
		in := layoutInput(Parallel{})
		c.Class = "experts"
		in.Model.Weights.Classes = append(in.Model.Weights.Classes, c)
		if _, err := PlanMemory(in); err == nil || !strings.Contains(err.Error(), "model.weights.classes[5]") {
			t.Errorf("class layers %+v: %v, want an error naming model.weights.classes[5]", c, err)
		}
	}
}

// TestNoCustomAllReduce: --disable-custom-all-reduce leaves the estimated
// communication memory NCCL's alone, and says so.
func TestNoCustomAllReduce(t *testing.T) {
	comm := func(p Parallel) (Bytes, string) {
		in := layoutInput(p)
		in.Serving.Engine = EngineVLLM
		rp, err := Report(in)
		if err != nil || rp.Layout == nil {
			t.Fatalf("Report(%+v) = %v", p, err)
		}
		for _, it := range rp.Layout.Ranks[0].Plan.Items {
			if it.Key == "communication" {
				return it.Bytes, it.Detail
			}
		}
		return 0, ""
	}
	with, _ := comm(Parallel{Tensor: 2})
	without, detail := comm(Parallel{Tensor: 2, NoCustomAllReduce: true})
	if with != ncclTwo+customAllReduce || without != ncclTwo || !strings.Contains(detail, "no custom all-reduce") {
		t.Errorf("TP 2: %v with the custom all-reduce, %v without (%q); want %v and %v", with, without, detail, ncclTwo+customAllReduce, ncclTwo)
	}
}
