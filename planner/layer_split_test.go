package planner_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/cmdline"
)

// llamaSplitInput is Llama-3.1-8B Q8_0 under llama.cpp on H200s split by
// layers with shares ts.
func llamaSplitInput(t *testing.T, ts ...float64) planner.Input {
	t.Helper()
	m, err := catalog.Lookup("llama-3.1-8b-instruct-q8_0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup("h200")
	if err != nil {
		t.Fatal(err)
	}
	return planner.Input{Model: m, Calibration: c, Limits: planner.Limits{MaxBatch: 4, MaxSeqLen: 8192},
		Serving: planner.Serving{Engine: planner.EngineLlamaCpp}, Parallel: planner.Parallel{Pipeline: len(ts), TensorSplit: ts}}
}

// TestLlamaLayerSplit checks the layers each device holds against
// llama.cpp's rule (load_tensors: layer il of n_layer + 1 on device
// upper_bound(cumulative shares, il / (n_layer + 1))), worked by hand for
// Llama-3.1-8B's 32 layers.
func TestLlamaLayerSplit(t *testing.T) {
	for _, c := range []struct {
		ts   []float64
		want [][2]int
	}{
		{nil, [][2]int{{0, 17}, {17, 32}}}, // two devices, equal shares by default: 0-16 (16/33 < 0.5), 17-31 and the output
		{[]float64{3, 1}, [][2]int{{0, 25}, {25, 32}}},
		{[]float64{1, 1, 1, 1}, [][2]int{{0, 9}, {9, 17}, {17, 25}, {25, 32}}},
	} {
		in := llamaSplitInput(t, c.ts...)
		if c.ts == nil {
			in.Parallel.Pipeline = 2
		}
		p, err := planner.Report(in)
		if err != nil {
			t.Fatalf("Report(-ts %v): %v", c.ts, err)
		}
		if len(p.Layout.Ranks) != len(c.want) {
			t.Fatalf("-ts %v: %d distinct ranks, want %d", c.ts, len(p.Layout.Ranks), len(c.want))
		}
		for i, rp := range p.Layout.Ranks {
			if got := rp.Plan.Input.Rank.Layers; got != c.want[i] {
				t.Errorf("-ts %v: device %d holds layers %v, want %v", c.ts, i, got, c.want[i])
			}
		}
		last := p.Layout.Ranks[len(p.Layout.Ranks)-1].Plan
		launch := last.Engine.Launch
		if !strings.Contains(launch, " -ngl 33 ") || !strings.Contains(launch, " -sm layer -ts ") {
			t.Errorf("-ts %v: launch %q, want -ngl 33 and -sm layer -ts", c.ts, launch)
		}
		// The launch command read back gives the same layout.
		cmd, err := cmdline.Parse(launch)
		if err != nil {
			t.Fatalf("Parse(%q): %v", launch, err)
		}
		again := llamaSplitInput(t)
		if _, err := cmd.Apply(&again); err != nil {
			t.Fatal(err)
		}
		q, err := planner.Report(again)
		if err != nil || len(q.Layout.Ranks) != len(c.want) || q.Layout.Ranks[0].Plan.Input.Rank.Layers != c.want[0] {
			t.Errorf("the launch command %q read back plans %v, %v", launch, q.Layout, err)
		}
	}
}

func TestLlamaLayerSplitErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*planner.Input)
		want string
	}{
		{func(in *planner.Input) { in.Parallel.TensorSplit = []float64{1, 0.001} }, "device 1 gets no layer"},
		{func(in *planner.Input) { in.Parallel.TensorSplit = []float64{1, 1, 1} }, "3 shares for 2 pipeline stages"},
		{func(in *planner.Input) { in.Parallel.TensorSplit = []float64{1, -1} }, "share 1 is -1"},
		{func(in *planner.Input) { in.Serving.Engine = planner.EngineVLLM }, "llama.cpp's -ts"},
		{func(in *planner.Input) { in.Parallel.Tensor = 2 }, "no tensor or expert parallelism"},
	} {
		in := llamaSplitInput(t, 1, 1)
		c.mod(&in)
		_, err := planner.Report(in)
		var ie *planner.InputError
		if !errors.As(err, &ie) || ie.Field != "parallel.tensor_split" || !strings.Contains(ie.Msg, c.want) {
			t.Errorf("Report = %v, want an InputError for parallel.tensor_split saying %q", err, c.want)
		}
	}
}

// TestLlamaTensorParallelNote: llama.cpp under tensor parallelism names no
// split flag and says why (b12072 has no -sm row on CUDA; -sm tensor is
// not planned).
func TestLlamaTensorParallelNote(t *testing.T) {
	in := llamaSplitInput(t)
	in.Parallel = planner.Parallel{Tensor: 2}
	p, err := planner.Report(in)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Layout.Ranks[0].Plan.Engine
	if strings.Contains(e.Launch, " -sm ") || !strings.Contains(strings.Join(e.Notes, "\n"), "-sm tensor, which is not planned") {
		t.Errorf("tp 2 under llama.cpp: launch %q, notes %q", e.Launch, e.Notes)
	}
}

// TestLlamaLayerSplitSums is the property that llama.cpp's layer split
// neither loses nor doubles weights: over the catalog's models and random
// shares for 2 to 4 devices, the devices' model buffers add up to the one
// GPU's (token_embd on the host, the output layer on the last device,
// within a MiB of rounding per device), and every device holds at least
// one layer of a contiguous run.
func TestLlamaLayerSplitSums(t *testing.T) {
	ms, err := catalog.All()
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup("h200")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(17, 17))
	checked := 0
	for _, m := range ms {
		one := planner.Input{Model: m, Calibration: c, Limits: planner.Limits{MaxBatch: 1, MaxSeqLen: 4096},
			Serving: planner.Serving{Engine: planner.EngineLlamaCpp}}
		single, err := planner.PlanMemory(one)
		if err != nil {
			continue // a shape the llama.cpp profile does not plan
		}
		ts := make([]float64, 2+r.IntN(3))
		for i := range ts {
			ts[i] = float64(1 + r.IntN(4))
		}
		in := one
		in.Parallel = planner.Parallel{Pipeline: len(ts), TensorSplit: ts}
		p, err := planner.PlanMemory(in)
		if err != nil {
			var ie *planner.InputError
			if errors.As(err, &ie) && ie.Field == "parallel.tensor_split" {
				continue // a device of too small a share for this model's layers
			}
			t.Fatalf("%s -ts %v: %v", m.ID, ts, err)
		}
		var sum planner.Bytes
		next := 0
		for _, rp := range p.Layout.Ranks {
			sum += weightsOf(rp.Plan) * planner.Bytes(len(rp.Ranks))
			if l := rp.Plan.Input.Rank.Layers; l[0] != next || l[1] <= l[0] {
				t.Errorf("%s -ts %v: device %v holds layers %v after layer %d", m.ID, ts, rp.Ranks, l, next)
			}
			next = rp.Plan.Input.Rank.Layers[1]
		}
		if d := sum - weightsOf(single); d < -planner.Bytes(len(ts))*planner.MiB || d > planner.Bytes(len(ts))*planner.MiB {
			t.Errorf("%s -ts %v: the devices hold %d B of weights, one GPU %d B", m.ID, ts, sum, weightsOf(single))
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("%d catalog models checked, want at least 10", checked)
	}
}

func weightsOf(p planner.Plan) planner.Bytes {
	for _, it := range p.Items {
		if it.Key == "weights" {
			return it.Bytes
		}
	}
	return 0
}
