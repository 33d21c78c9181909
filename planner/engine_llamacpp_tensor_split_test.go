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

// llamaTensorInput is catalog model id under llama.cpp's -sm tensor on n
// H200s with shares ts (none: llama.cpp's even split).
func llamaTensorInput(t *testing.T, id string, n int, ts ...float64) planner.Input {
	t.Helper()
	in := variantInput(t, id, planner.Parallel{Tensor: n, TensorSplit: ts})
	in.Limits = planner.Limits{MaxBatch: 4, MaxSeqLen: 8192}
	in.Serving.Engine = planner.EngineLlamaCpp
	return in
}

// llamaSingle is a catalog model's one-GPU input under llama.cpp on an
// H200 and its plan.
type llamaSingle struct {
	in   planner.Input
	plan planner.Plan
}

// llamaSingles plans every catalog model the llama.cpp profile plans on
// one H200 at limits l.
func llamaSingles(t *testing.T, l planner.Limits) []llamaSingle {
	t.Helper()
	ms, err := catalog.All()
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup("h200")
	if err != nil {
		t.Fatal(err)
	}
	var out []llamaSingle
	for _, m := range ms {
		in := planner.Input{Model: m, Calibration: c, Limits: l, Serving: planner.Serving{Engine: planner.EngineLlamaCpp}}
		if p, err := planner.PlanMemory(in); err == nil { // else a shape the llama.cpp profile does not plan
			out = append(out, llamaSingle{in, p})
		}
	}
	return out
}

// TestLlamaTensorSplit checks Llama-3.1-8B Q8_0 (8 KV heads of 128, 32
// query heads) under -sm tensor -ts 3,1 against the rule worked by hand:
// 6 and 2 KV heads a layer, so 3/4 and 1/4 of the one GPU's KV; every
// device reserves the one GPU's compute buffer (whole-tensor sizes) plus
// one reduce buffer of n_embd × n_ubatch f32; the launch command says
// -sm tensor -ts 3,1 and reads back to the same plan.
func TestLlamaTensorSplit(t *testing.T) {
	one := llamaTensorInput(t, "llama-3.1-8b-instruct-q8_0", 0)
	single, err := planner.Report(one)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Report(llamaTensorInput(t, "llama-3.1-8b-instruct-q8_0", 2, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Layout.Ranks) != 2 {
		t.Fatalf("-ts 3,1: %d distinct devices, want 2", len(p.Layout.Ranks))
	}
	kv := itemOf(single, "kv")
	for i, want := range []planner.Bytes{kv / 4 * 3, kv / 4} {
		rp := &p.Layout.Ranks[i].Plan
		if got := itemOf(*rp, "kv"); got != want {
			t.Errorf("device %d: KV %d B, want %d", i, got, want)
		}
		if heads := rp.Input.Model.Layers[0].KVHeads; heads != []int{6, 2}[i] {
			t.Errorf("device %d: %d KV heads, want %d", i, heads, []int{6, 2}[i])
		}
		reduce := planner.Bytes(4096 * 4 * 512)
		if got, want := itemOf(*rp, "compute_buffer"), itemOf(single, "compute_buffer")+reduce; got != want {
			t.Errorf("device %d: compute buffer %d B, want the one GPU's + one reduce buffer, %d", i, got, want)
		}
		if rp.Input.Rank.CommSource != planner.SourceEstimated || rp.Input.Rank.Comm != 342_000_000 {
			t.Errorf("device %d: communication %d B (%s), want NCCL's 342 MB, estimated", i, rp.Input.Rank.Comm, rp.Input.Rank.CommSource)
		}
	}
	if n := itemName(p.Layout.Ranks[1].Plan, "weights"); n != "CUDA1 model buffer" {
		t.Errorf("device 1's weights are named %q, want CUDA1 model buffer", n)
	}
	if n := itemName(p, "weights"); n != "CUDA0-CUDA1 model buffer" {
		t.Errorf("the layout's weights are named %q, want CUDA0-CUDA1 model buffer", n)
	}
	launch := p.Layout.Ranks[0].Plan.Engine.Launch
	if !strings.HasSuffix(launch, " -sm tensor -ts 3,1") || strings.Contains(launch, "-sm layer") {
		t.Errorf("launch %q, want -sm tensor -ts 3,1", launch)
	}
	cmd, err := cmdline.Parse(launch)
	if err != nil {
		t.Fatalf("Parse(%q): %v", launch, err)
	}
	again := one
	if _, err := cmd.Apply(&again); err != nil {
		t.Fatal(err)
	}
	q, err := planner.Report(again)
	if err != nil || q.Layout == nil || q.Total != p.Total || len(q.Layout.Ranks) != 2 {
		t.Errorf("the launch command %q read back plans total %d (%v), want %d", launch, q.Total, err, p.Total)
	}
}

// TestLlamaTensorEven: an even split that divides gives every device the
// same charges, half of each split matrix's; the first device's plan is
// apart only for the host's token_embd it lists, and the others collapse.
func TestLlamaTensorEven(t *testing.T) {
	p, err := planner.PlanMemory(llamaTensorInput(t, "llama-3.1-8b-instruct-q8_0", 4))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Layout.Ranks) != 2 || len(p.Layout.Ranks[1].Ranks) != 3 {
		t.Fatalf("no -ts: devices %v, want 0 and 1-3 alike", p.Layout.Ranks)
	}
	a, b := &p.Layout.Ranks[0].Plan, &p.Layout.Ranks[1].Plan
	if a.Total != b.Total || itemOf(*a, "weights") != itemOf(*b, "weights") {
		t.Errorf("device 0 total %d, weights %d; the others %d, %d", a.Total, itemOf(*a, "weights"), b.Total, itemOf(*b, "weights"))
	}
	if got := b.Input.Model.Layers[0].KVHeads; got != 2 {
		t.Errorf("KV heads per device %d, want 2", got)
	}
}

func TestLlamaTensorErrors(t *testing.T) {
	for _, c := range []struct {
		id          string
		mod         func(*planner.Input)
		field, want string
	}{
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Serving.LlamaCpp.FlashAttn = planner.FlashAttnOff },
			"serving.llama_cpp.flash_attn", "requires flash attention"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Limits.KVDtype = planner.KVDtypeQ8_0 },
			"limits.kv_dtype", "no quantized KV cache"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Serving.LlamaCpp.VDtype = planner.KVDtypeQ4_0 },
			"serving.llama_cpp.kv_dtype_v", "no quantized KV cache"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Parallel.Pipeline = 2 },
			"parallel.pipeline_parallel", "no pipeline stages"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Parallel.Data = 2 },
			"parallel.data_parallel", "no replicas"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Parallel.TensorSplit = []float64{1, 1, 1} },
			"parallel.tensor_split", "3 shares for tensor_parallel 2"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Parallel.TensorSplit = []float64{1, 0} },
			"parallel.tensor_split", "share 1 is 0"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Parallel.Tensor = 17 },
			"parallel.tensor_parallel", "at most 16 devices"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) {
			in.Parallel.Tensor, in.Parallel.TensorSplit = 16, make([]float64, 16)
		}, "parallel.tensor_split", "fewer than 16"},
		{"llama-3.1-8b-instruct-q8_0", func(in *planner.Input) { in.Model.QueryHeads = 30 },
			"model.query_heads", "not a multiple"},
		{"deepseek-v2-lite-chat-q4_k_m", nil, "model.arch", "not implemented for architecture"},
		{"qwen3-next-80b-a3b-instruct-q4_k_m", nil, "model.layers[0].kind", "recurrent layers"},
	} {
		in := llamaTensorInput(t, c.id, 2)
		if c.mod != nil {
			c.mod(&in)
		}
		_, err := planner.Report(in)
		var ie *planner.InputError
		if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(ie.Msg, c.want) {
			t.Errorf("%s: Report = %v, want an InputError for %s saying %q", c.id, err, c.field, c.want)
		}
	}
}

// TestLlamaTensorSums is the property that -sm tensor neither loses nor
// doubles what it splits: over the catalog's models it plans and random
// shares for 2 to 4 devices, the devices' KV heads add up to the model's
// in every layer, their KV to the one GPU's exactly, and their model
// buffers to the one GPU's plus N − 1 copies of the mirrored part, the
// same part whatever the count and the shares (measured at two even
// devices; within a MiB a device of CUDA's row padding); and the layout
// fits exactly when every device's total is within its budget.
func TestLlamaTensorSums(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	checked := 0
	for _, s := range llamaSingles(t, planner.Limits{MaxBatch: 2, MaxSeqLen: 4096}) {
		one, single, m := s.in, s.plan, s.in.Model
		two := one
		two.Parallel = planner.Parallel{Tensor: 2}
		even, err := planner.PlanMemory(two)
		var ie *planner.InputError
		if errors.As(err, &ie) && (ie.Field == "model.arch" || strings.HasSuffix(ie.Field, ".kind")) {
			continue // an architecture -sm tensor refuses, or a layer kind it does not plan
		} else if err != nil {
			t.Fatalf("%s -sm tensor, 2 GPUs: %v", m.ID, err)
		}
		mirrored := sumOver(&even, "weights") - itemOf(single, "weights")
		n := 2 + r.IntN(3)
		in := one
		in.Parallel = planner.Parallel{Tensor: n, TensorSplit: make([]float64, n)}
		for i := range n {
			in.Parallel.TensorSplit[i] = float64(1 + r.IntN(4))
		}
		p, err := planner.PlanMemory(in)
		if err != nil {
			t.Fatalf("%s -ts %v: %v", m.ID, in.Parallel.TensorSplit, err)
		}
		ts := in.Parallel.TensorSplit
		want := itemOf(single, "weights") + planner.Bytes(n-1)*mirrored
		if d := sumOver(&p, "weights") - want; d < -planner.Bytes(n)*planner.MiB || d > planner.Bytes(n)*planner.MiB {
			t.Errorf("%s -ts %v: the devices hold %d B of weights, want %d (one GPU %d + %d × mirrored %d)",
				m.ID, ts, sumOver(&p, "weights"), want, itemOf(single, "weights"), n-1, mirrored)
		}
		if got, want := sumOver(&p, "kv")+sumOver(&p, "kv_swa"), itemOf(single, "kv")+itemOf(single, "kv_swa"); got != want {
			t.Errorf("%s -ts %v: the devices hold %d B of KV, one GPU %d", m.ID, ts, got, want)
		}
		checkHeads(t, &p, &m, ts)
		fits := true
		for _, rp := range p.Layout.Ranks {
			fits = fits && rp.Plan.Total <= rp.Plan.Budget
			if rp.Plan.Fits != (rp.Plan.Total <= rp.Plan.Budget) {
				t.Errorf("%s -ts %v: device %v fits %v with total %d of %d", m.ID, ts, rp.Ranks, rp.Plan.Fits, rp.Plan.Total, rp.Plan.Budget)
			}
		}
		if p.Fits != fits {
			t.Errorf("%s -ts %v: the layout fits %v, its devices %v", m.ID, ts, p.Fits, fits)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("%d catalog models checked, want at least 20", checked)
	}
}

// sumOver sums charge key over every device of a layout plan.
func sumOver(p *planner.Plan, key string) planner.Bytes {
	var s planner.Bytes
	for _, rp := range p.Layout.Ranks {
		s += itemOf(rp.Plan, key) * planner.Bytes(len(rp.Ranks))
	}
	return s
}

// checkHeads checks that every layer's KV heads, summed over the devices,
// are the model's.
func checkHeads(t *testing.T, p *planner.Plan, m *planner.Model, ts []float64) {
	t.Helper()
	want := perLayerHeads(m)
	got := make([]int, len(want))
	for _, rp := range p.Layout.Ranks {
		for il, h := range perLayerHeads(&rp.Plan.Input.Model) {
			got[il] += h * len(rp.Ranks)
		}
	}
	for il := range want {
		if got[il] != want[il] {
			t.Errorf("%s -ts %v: layer %d has %d KV heads over the devices, want %d", m.ID, ts, il, got[il], want[il])
			return
		}
	}
}

func perLayerHeads(m *planner.Model) []int {
	var out []int
	for _, g := range m.Layers {
		for range g.Count {
			out = append(out, g.KVHeads)
		}
	}
	return out
}

func itemName(p planner.Plan, key string) string {
	for _, it := range p.Items {
		if it.Key == key {
			return it.Name
		}
	}
	return ""
}

// TestLlamaTensorOffload: with -ngl below the layer count, the CPU's
// layers and their KV are the host's once, whole, in the first device's
// plan (as one GPU lists them at the same -ngl); a plan that does not fit
// names the -ngl that does with -sm tensor in its command, and offers no
// quantized KV cache, which -sm tensor refuses.
func TestLlamaTensorOffload(t *testing.T) {
	one := llamaTensorInput(t, "llama-3.1-8b-instruct-q8_0", 0)
	one.Serving.LlamaCpp.GPULayers = 20
	single, err := planner.Report(one)
	if err != nil {
		t.Fatal(err)
	}
	in := one
	in.Parallel = planner.Parallel{Tensor: 2, TensorSplit: []float64{3, 1}}
	p, err := planner.Report(in)
	if err != nil {
		t.Fatal(err)
	}
	host := func(pl *planner.Plan, key string) (planner.Bytes, bool) {
		for _, it := range pl.Engine.Host {
			if it.Key == key {
				return it.Bytes, true
			}
		}
		return 0, false
	}
	for _, key := range []string{"cpu_layers", "cpu_kv", "token_embd"} {
		want, _ := host(&single, key)
		if got, ok := host(&p.Layout.Ranks[0].Plan, key); !ok || got != want {
			t.Errorf("device 0's host %s = %d (%v), want one GPU's %d", key, got, ok, want)
		}
		if _, ok := host(&p.Layout.Ranks[1].Plan, key); ok {
			t.Errorf("device 1 lists the host's %s too", key)
		}
	}

	big := llamaTensorInput(t, "llama-3.3-70b-instruct-q4_k_m", 2, 1, 1)
	big.Limits = planner.Limits{MaxBatch: 4, MaxSeqLen: 65536}
	big.Budget = 32 * planner.GiB
	f, err := planner.Report(big) // its error is the failure report's
	if f.Fits || f.Layout == nil {
		t.Fatalf("70B at 4 × 64K on two 32 GiB budgets: fits %v, %v; want a failure report", f.Fits, err)
	}
	e := f.Layout.Ranks[0].Plan.Engine
	if notes := strings.Join(e.Notes, "\n"); !strings.Contains(notes, "as asked, -ngl 81 does not fit") ||
		!strings.HasSuffix(e.Launch, " -sm tensor -ts 1,1") || !strings.HasSuffix(e.LaunchAsAsked, " -ngl 81 -sm tensor -ts 1,1") ||
		strings.Contains(e.Launch, " -ngl 81 ") {
		t.Errorf("notes %q, launch %q, as asked %q: want the launch command at the -ngl that fits with -sm tensor -ts 1,1", notes,
			e.Launch, e.LaunchAsAsked)
	}
	ls := f.Levers
	if f.Combination != nil {
		ls = append(ls, f.Combination.Changes...)
	}
	for _, l := range ls {
		if l.Knob == planner.KnobKVDtype && (l.To == "q8_0" || l.To == "q4_0") {
			t.Errorf("lever %+v: -sm tensor has no quantized KV cache", l)
		}
	}
}
