package calc

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestLayoutQuery(t *testing.T) {
	const q = "model=m&gpu=g&batch=8&len=4096&tp=8&pp=2&ep=8"
	s, err := ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if s.TP != 8 || s.PP != 2 || s.EP != 8 || s.DP != 0 || s.GPUs() != 16 {
		t.Errorf("ParseQuery(%q) = tp %d pp %d ep %d dp %d (%d GPUs)", q, s.TP, s.PP, s.EP, s.DP, s.GPUs())
	}
	if got := s.Encode(); got != q {
		t.Errorf("Encode = %q, want %q", got, q)
	}
	if s, _ := ParseQuery("tp=1&pp=1"); s.Encode() != "batch=0&len=4096" {
		t.Errorf("a 1×1 layout encodes as %q, want no layout keys", s.Encode())
	}
	for q, key := range map[string]string{"tp=two": "tp", "pp=0": "pp", "ep=-1": "ep", "dp=1025": "dp", "tp=1.5": "tp"} {
		_, err := ParseQuery(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != key {
			t.Errorf("ParseQuery(%q) = %v, want a FieldError for %q", q, err, key)
		}
	}
}

// TestLayoutView checks the per-rank view of DeepSeek-V3 at TP8 × PP2 ×
// EP8 against the planner's layout plan: one bar per distinct rank, the
// binding rank marked, the figures each rank's plan has.
func TestLayoutView(t *testing.T) {
	in := golden(t, "layout-deepseek-v3-fp8-tp8-pp2-h200")
	s := State{Batch: 64, Len: 32768, KV: planner.KVDtypeFP8, TP: 8, PP: 2, EP: 8}
	v := Calculate(s, in.Model, in.Calibration)
	p, err := planner.Report(in)
	if v.Error != "" || err != nil || p.Layout == nil {
		t.Fatalf("Calculate: %q; Report: %v", v.Error, err)
	}
	if v.Layout == nil || len(v.Layout.Ranks) != len(p.Layout.Ranks) || v.Layout.GPUs != 16 || v.Layout.Binding != p.Layout.Binding {
		t.Fatalf("Layout = %+v; want %d distinct ranks of 16 GPUs, binding %d", v.Layout, len(p.Layout.Ranks), p.Layout.Binding)
	}
	if v.TotalMiB != p.Total.MiB() {
		t.Errorf("TotalMiB = %d, want the layout's sum %d", v.TotalMiB, p.Total.MiB())
	}
	bound := 0
	for i, r := range v.Layout.Ranks {
		q := &p.Layout.Ranks[i].Plan
		if r.TotalMiB != q.Total.MiB() || r.BudgetMiB != q.Budget.MiB() || r.Fits != q.Fits || len(r.Bars) != nonEmpty(q.Tiers) {
			t.Errorf("rank %q: total %d budget %d fits %v; plan %d %d %v", r.Label, r.TotalMiB, r.BudgetMiB, r.Fits,
				q.Total.MiB(), q.Budget.MiB(), q.Fits)
		}
		if r.Binding {
			bound++
			if !strings.HasPrefix(r.Label, "ranks "+runs(p.Layout.Ranks[i].Ranks)) || p.Layout.Ranks[i].Ranks[0] != p.Layout.Binding {
				t.Errorf("binding rank view %q is not rank %d's", r.Label, p.Layout.Binding)
			}
		}
	}
	if bound != 1 {
		t.Errorf("%d ranks marked binding, want 1", bound)
	}
	if !strings.Contains(v.Launch, "--tensor-parallel-size 8") && !strings.Contains(v.Verdict, "rank") {
		t.Errorf("verdict %q, launch %q", v.Verdict, v.Launch)
	}
	if !strings.Contains(v.Subject, "16 × ") {
		t.Errorf("Subject = %q, want it to name the 16 GPUs", v.Subject)
	}
}

// TestLayoutLevers applies the layout levers of a model too big for one
// GPU: each leads to a state with a layout, and a lever marked as fitting
// fits there.
func TestLayoutLevers(t *testing.T) {
	in := golden(t, "layout-deepseek-v3-fp8-one-h200")
	s := State{Batch: 16, Len: 32768}
	v := Calculate(s, in.Model, in.Calibration)
	if v.Fits || v.Layout != nil {
		t.Fatalf("DeepSeek-V3 on one H200: fits %v, layout %v", v.Fits, v.Layout)
	}
	layouts := 0
	for _, l := range v.Levers {
		t2, err := ParseQuery(l.Query)
		if err != nil {
			t.Fatal(err)
		}
		if t2.GPUs() == 1 {
			continue
		}
		layouts++
		if want := strconv.Itoa(t2.GPUs()) + " GPUs"; !strings.Contains(l.Label, want) {
			t.Errorf("lever %q does not say it uses %s", l.Label, want)
		}
		w := Calculate(t2, in.Model, in.Calibration)
		if w.Fits != l.Fits || w.Layout == nil || w.Layout.GPUs != t2.GPUs() {
			t.Errorf("lever %q (%s): fits %v on %v, lever says %v", l.Label, l.Query, w.Fits, w.Layout, l.Fits)
		}
	}
	if layouts == 0 {
		t.Errorf("levers %+v: none changes the layout", v.Levers)
	}
}

func TestWithLayoutLever(t *testing.T) {
	s := State{Batch: 1, Len: 1024, EP: 4}
	for _, c := range []struct {
		l              planner.Lever
		tp, pp, ep, dp int
	}{
		{planner.Lever{Knob: planner.KnobTensorParallel, From: "1", To: "4"}, 4, 0, 4, 0},
		{planner.Lever{Knob: planner.KnobPipelineParallel, From: "1", To: "2"}, 0, 2, 4, 0},
		{planner.Lever{Knob: planner.KnobGPUs, From: "1", To: "8 (tensor_parallel 4 × pipeline_parallel 2)"}, 4, 2, 1, 1},
		{planner.Lever{Knob: planner.KnobGPUs, From: "1", To: "6 (tensor_parallel 2 × pipeline_parallel 1 × expert_parallel 6 × data_parallel 3)"}, 2, 1, 6, 3},
		{planner.Lever{Knob: planner.KnobWeights, From: "m-bf16", To: "m-q8_0"}, 0, 0, 4, 0},
		{planner.Lever{Knob: planner.KnobWeights, From: "m-bf16", To: "m-q4 on 4 GPUs (tensor_parallel 1 × pipeline_parallel 4)"}, 1, 4, 1, 1},
	} {
		got, ok := s.WithLever(c.l)
		if !ok || got.TP != c.tp || got.PP != c.pp || got.EP != c.ep || got.DP != c.dp {
			t.Errorf("WithLever(%s %s) = tp %d pp %d ep %d dp %d (%v), want %d %d %d %d",
				c.l.Knob, c.l.To, got.TP, got.PP, got.EP, got.DP, ok, c.tp, c.pp, c.ep, c.dp)
		}
	}
	if _, ok := s.WithLever(planner.Lever{Knob: planner.KnobGPUs, To: "8 (tensor_parallel x)"}); ok {
		t.Error("WithLever accepted a GPUs lever whose layout does not read")
	}
}

func TestLayoutInputError(t *testing.T) {
	in := golden(t, "layout-llama-3.1-8b-tp2-h200")
	v := Calculate(State{Batch: 1, Len: 1024, TP: 3}, in.Model, in.Calibration)
	if !strings.HasPrefix(v.Error, "Tensor parallel: ") || !strings.Contains(v.Error, "not divisible by tensor_parallel 3") {
		t.Errorf("Calculate(tp 3).Error = %q, want it to name the tensor-parallel field", v.Error)
	}
}

// nonEmpty counts the tiers that hold something, those a bar shows.
func nonEmpty(tiers []planner.TierTotal) int {
	n := 0
	for _, t := range tiers {
		if t.Bytes != 0 {
			n++
		}
	}
	return n
}
