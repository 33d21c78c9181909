package planner_test

import (
	"errors"
	"math/rand/v2"
	"strconv"
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
		{func(in *planner.Input) { in.Parallel.Expert = 2 }, "no tensor or expert parallelism"},
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

// TestLlamaReplicasNote: llama.cpp with data-parallel replicas names no
// split flag and says why (one llama-server has no replicas).
func TestLlamaReplicasNote(t *testing.T) {
	in := llamaSplitInput(t)
	in.Parallel = planner.Parallel{Data: 2}
	p, err := planner.Report(in)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Layout.Ranks[0].Plan.Engine
	if strings.Contains(e.Launch, " -sm ") || !strings.Contains(strings.Join(e.Notes, "\n"), "no data or expert parallelism") {
		t.Errorf("dp 2 under llama.cpp: launch %q, notes %q", e.Launch, e.Notes)
	}
}

// TestLlamaLayerSplitSums is the property that llama.cpp's layer split
// neither loses nor doubles weights: over the catalog's models and random
// shares for 2 to 4 devices, the devices' model buffers add up to the one
// GPU's (token_embd on the host, the output layer on the last device,
// within a MiB of rounding per device), and every device holds at least
// one layer of a contiguous run.
func TestLlamaLayerSplitSums(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	checked := 0
	for _, s := range llamaSingles(t, planner.Limits{MaxBatch: 1, MaxSeqLen: 4096}) {
		one, single, m := s.in, s.plan, s.in.Model
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

// llama70bOn5090s is Llama-3.3-70B Q4_K_M under llama.cpp on two RTX 5090s
// split 1:1, at a context that does not fit with every layer offloaded.
func llama70bOn5090s(t *testing.T, ngl int) planner.Input {
	t.Helper()
	m, err := catalog.Lookup("llama-3.3-70b-instruct-q4_k_m")
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup("rtx5090")
	if err != nil {
		t.Fatal(err)
	}
	return planner.Input{Model: m, Calibration: c, Limits: planner.Limits{MaxBatch: 4, MaxSeqLen: 65536},
		Serving:  planner.Serving{Engine: planner.EngineLlamaCpp, LlamaCpp: planner.LlamaCppOptions{GPULayers: ngl}},
		Parallel: planner.Parallel{Pipeline: 2, TensorSplit: []float64{1, 1}}}
}

// TestLlamaPartialOffload checks -ngl below the layer count across two
// devices against load_tensors' rule worked by hand (80 layers, -ngl 34:
// i_gpu_start 47, so layers 0-46 stay on the CPU and (il − 47) / 34 < 0.5
// puts 47-63 on device 0, 64-79 and the output on device 1), the CPU's
// layers in the first device's host memory as one GPU lists them at the
// same -ngl, and the search: the layout that does not fit names the
// largest -ngl that does, which fits, and one more does not.
func TestLlamaPartialOffload(t *testing.T) {
	p, err := planner.Report(llama70bOn5090s(t, 34))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{47, 64}, {64, 80}}
	for i, rp := range p.Layout.Ranks {
		if got := rp.Plan.Input.Rank.Layers; got != want[i] {
			t.Errorf("-ngl 34: device %d holds layers %v, want %v", i, got, want[i])
		}
		if !strings.Contains(rp.Plan.Engine.Launch, " -ngl 34 -sm layer -ts 1,1") {
			t.Errorf("device %d: launch %q, want -ngl 34 -sm layer -ts 1,1", i, rp.Plan.Engine.Launch)
		}
	}
	one := llama70bOn5090s(t, 34)
	one.Parallel = planner.Parallel{}
	single, err := planner.Report(one)
	if err != nil && !p.Fits {
		t.Fatal(err)
	}
	if got, want := hostItem(p.Layout.Ranks[0].Plan, "cpu_layers"), hostItem(single, "cpu_layers"); got == 0 || got != want {
		t.Errorf("-ngl 34: the CPU's layers are %d B on the first device's host, one GPU lists %d B", got, want)
	}
	if got, want := hostItem(p.Layout.Ranks[0].Plan, "cpu_kv"), hostItem(single, "cpu_kv"); got == 0 || got != want {
		t.Errorf("-ngl 34: the CPU's layers' KV is %d B on the first device's host, one GPU lists %d B", got, want)
	}
	if hostItem(p.Layout.Ranks[1].Plan, "cpu_layers") != 0 || hostItem(p.Layout.Ranks[1].Plan, "cpu_kv") != 0 {
		t.Error("the second device lists the CPU's layers too")
	}

	full, err := planner.Report(llama70bOn5090s(t, 0))
	var f *planner.Failure
	if !errors.As(err, &f) || full.Fits {
		t.Fatalf("every layer offloaded: %v, fits %v; want it not to fit", err, full.Fits)
	}
	e := full.Layout.Ranks[0].Plan.Engine
	k := e.LlamaCpp.LayersThatFit
	note := strings.Join(e.Notes, "\n")
	if k < 3 || !strings.Contains(note, "does not fit on every device of the layout: the launch command is the one with -ngl "+strconv.Itoa(k)+",") ||
		!strings.Contains(e.Launch, " -ngl "+strconv.Itoa(k)+" ") || !strings.Contains(e.LaunchAsAsked, " -ngl 81 ") {
		t.Fatalf("LayersThatFit %d, notes %q, launch %q as asked %q: want the launch at the largest -ngl that fits", k, note,
			e.Launch, e.LaunchAsAsked)
	}
	for ngl, fits := range map[int]bool{k: true, k + 1: false} {
		q, _ := planner.Report(llama70bOn5090s(t, ngl))
		if q.Fits != fits {
			t.Errorf("-ngl %d (the search found %d): fits %v, want %v", ngl, k, q.Fits, fits)
		}
	}
}

// TestLlamaPartialOffloadSums: at any -ngl the devices and the CPU hold the
// model's weights once, and each device holds a contiguous run after the
// CPU's layers.
func TestLlamaPartialOffloadSums(t *testing.T) {
	in := llama70bOn5090s(t, 0)
	n := in.Model.NumLayers()
	one := in
	one.Parallel = planner.Parallel{}
	whole, _ := planner.PlanMemory(one)
	for ngl := 4; ngl <= n+1; ngl += 7 { // at 3, device 1 would hold only the output layer
		p, err := planner.PlanMemory(llama70bOn5090s(t, ngl))
		q, _ := planner.Report(llama70bOn5090s(t, ngl))
		if ie := (*planner.InputError)(nil); errors.As(err, &ie) {
			t.Fatalf("-ngl %d: %v", ngl, err)
		}
		sum := hostItem(q.Layout.Ranks[0].Plan, "cpu_layers")
		kv := hostItem(q.Layout.Ranks[0].Plan, "cpu_kv")
		next := n + 1 - ngl
		for _, rp := range p.Layout.Ranks {
			sum += weightsOf(rp.Plan)
			kv += itemOf(rp.Plan, "kv")
			if l := rp.Plan.Input.Rank.Layers; l[0] != next || l[1] <= l[0] {
				t.Errorf("-ngl %d: device %v holds layers %v, want a run from %d", ngl, rp.Ranks, l, next)
			}
			next = rp.Plan.Input.Rank.Layers[1]
		}
		if kv != itemOf(whole, "kv") {
			t.Errorf("-ngl %d: devices and CPU hold %d B of KV, one GPU with every layer %d B", ngl, kv, itemOf(whole, "kv"))
		}
		if d := sum - weightsOf(whole); d < -2*planner.MiB || d > 2*planner.MiB {
			t.Errorf("-ngl %d: devices and CPU hold %d B of weights, one GPU with every layer %d B", ngl, sum, weightsOf(whole))
		}
	}
	_, err := planner.PlanMemory(llama70bOn5090s(t, 2))
	var ie *planner.InputError
	if !errors.As(err, &ie) || ie.Field != "parallel.tensor_split" || !strings.Contains(ie.Msg, "-ngl 2") {
		t.Errorf("-ngl 2 on two devices = %v, want a parallel.tensor_split error naming -ngl 2", err)
	}
}

func hostItem(p planner.Plan, key string) planner.Bytes {
	if p.Engine == nil {
		return 0
	}
	for _, it := range p.Engine.Host {
		if it.Key == key {
			return it.Bytes
		}
	}
	return 0
}

// BenchmarkLlamaSplitNoFit is Report of a llama.cpp layer split that does
// not fit with every layer offloaded, so the -ngl search runs: Llama-3.3-70B
// Q4_K_M at 64K tokens × 4 on two RTX 5090s.
func BenchmarkLlamaSplitNoFit(b *testing.B) {
	t := &testing.T{}
	in := llama70bOn5090s(t, 0)
	for b.Loop() {
		if _, err := planner.Report(in); err == nil {
			b.Fatal("it fits")
		}
	}
}

// TestLlamaSplitDeviceNames checks that each device of a layer split names
// its own buffers as llama.cpp's log names them (CUDA0, CUDA1, …), says
// which layers it holds and where the output layer is, and lists in its
// host memory only what is its own; the layout's sums name every device.
func TestLlamaSplitDeviceNames(t *testing.T) {
	p, err := planner.Report(llamaSplitInput(t, 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	layers := []string{"layers 0-10", "layers 11-21", "layers 22-31"}
	for d, rp := range p.Layout.Ranks {
		dev := "CUDA" + strconv.Itoa(d)
		for _, it := range rp.Plan.Items {
			if named(it.Name) && !strings.HasPrefix(it.Name, dev+" ") {
				t.Errorf("device %d: item %q, want it named %s", d, it.Name, dev)
			}
			switch it.Key {
			case "weights":
				output := strings.Contains(it.Detail, "and the output layer")
				if !strings.HasPrefix(it.Detail, layers[d]) || output != (d == 2) {
					t.Errorf("device %d: model buffer detail %q, want %s, the output layer only on the last", d, it.Detail, layers[d])
				}
				if d < 2 && !strings.Contains(it.Detail, "the output layer is on CUDA2") {
					t.Errorf("device %d: model buffer detail %q does not say the output layer is on CUDA2", d, it.Detail)
				}
			case "kv":
				if !strings.HasPrefix(it.Detail, layers[d]+": ") {
					t.Errorf("device %d: KV detail %q, want it to start with %s", d, it.Detail, layers[d])
				}
			}
		}
		if got, want := hostItem(rp.Plan, "token_embd") > 0, d == 0; got != want {
			t.Errorf("device %d lists token_embd: %v, want %v", d, got, want)
		}
		if got, want := hostItem(rp.Plan, "output_buffer") > 0, d == 2; got != want {
			t.Errorf("device %d lists the logits output buffer: %v, want %v", d, got, want)
		}
	}
	for _, it := range p.Items {
		if named(it.Name) && !strings.HasPrefix(it.Name, "CUDA0-CUDA2 ") {
			t.Errorf("the layout's sum %q, want it named CUDA0-CUDA2", it.Name)
		}
	}
}

// named reports whether an item's name names a CUDA device ("CUDA1 …").
func named(name string) bool {
	rest, ok := strings.CutPrefix(name, "CUDA")
	return ok && rest != "" && '0' <= rest[0] && rest[0] <= '9'
}

// itemOf is the bytes of p's item key.
func itemOf(p planner.Plan, key string) planner.Bytes {
	for _, it := range p.Items {
		if it.Key == key {
			return it.Bytes
		}
	}
	return 0
}
