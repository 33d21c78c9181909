package calc

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestSplitQuery(t *testing.T) {
	for q, want := range map[string]string{
		"engine=llama.cpp&pp=2&ts=3,1":         "3,1",
		"engine=llama.cpp&pp=2&ts=3/1":         "3,1", // llama.cpp's other separator
		"engine=llama.cpp&pp=3&ts=0.5,+1,%201": "0.5,1,1",
		"engine=vllm&pp=2&ts=3,1,1":            "3,1,1", // kept, not planned: no count to hold it to
		"engine=llama.cpp&ts=3,1":              "3,1",   // one GPU: kept, not planned
	} {
		s, err := ParseQuery(q)
		if err != nil || s.TS != want {
			t.Errorf("ParseQuery(%q).TS = %q, %v; want %q", q, s.TS, err, want)
			continue
		}
		if again, err := ParseQuery(s.Encode()); err != nil || again != s {
			t.Errorf("ParseQuery(Encode(%q)) = %+v, %v; want %+v", q, again, err, s)
		}
		if !strings.HasSuffix(s.Encode(), "&ts="+want) {
			t.Errorf("Encode(%q) = %q, want it to end in ts=%s", q, s.Encode(), want)
		}
	}
	for q, msg := range map[string]string{
		"engine=llama.cpp&pp=2&ts=3,x":   `share 1, "x", is not a number`,
		"engine=llama.cpp&pp=2&ts=3,0":   "share 1 is 0: want a positive number",
		"engine=llama.cpp&pp=2&ts=-1,1":  "share 0 is -1",
		"engine=llama.cpp&pp=2&ts=1,Inf": "share 1 is Inf",
		"engine=llama.cpp&pp=2&ts=1,NaN": "share 1 is NaN",
		"engine=llama.cpp&pp=2&ts=1,2e6": "share 1 is 2e6",
		"engine=llama.cpp&pp=2&ts=,,":    `",,": want one share per GPU`,
		"engine=llama.cpp&pp=2&ts=3,1,1": "3 shares for the layout's 2 GPUs",
		"engine=llama.cpp&pp=4&ts=3,1":   "2 shares for the layout's 4 GPUs",
		"engine=vllm&pp=2&ts=1,abc":      `"abc", is not a number`, // kept in the state, so read
	} {
		_, err := ParseQuery(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "ts" || !strings.Contains(fe.Msg, msg) {
			t.Errorf("ParseQuery(%q) = %v, want a FieldError for ts saying %q", q, err, msg)
		}
	}
}

// TestSplitPlanned checks that ts is the planner's parallel.tensor_split
// under llama.cpp with more than one GPU, and only there, and that the
// view's per-device figures are the planner's for that split.
func TestSplitPlanned(t *testing.T) {
	in := golden(t, "engine-llamacpp-llama3-8b-q8")
	for _, c := range []struct {
		s    State
		want []float64
	}{
		{State{Engine: planner.EngineLlamaCpp, PP: 2, TS: "3,1"}, []float64{3, 1}},
		{State{Engine: planner.EngineLlamaCpp, PP: 2}, nil},
		{State{Engine: planner.EngineLlamaCpp, TS: "3,1"}, nil},
		{State{Engine: planner.EngineVLLM, PP: 2, TS: "3,1"}, nil},
		{State{PP: 2, TS: "3,1"}, nil},
	} {
		var x planner.Input
		c.s.Apply(&x)
		if !slices.Equal(x.Parallel.TensorSplit, c.want) {
			t.Errorf("%+v.Apply: tensor_split %v, want %v", c.s, x.Parallel.TensorSplit, c.want)
		}
	}
	s := State{Batch: 4, Len: 8192, Engine: planner.EngineLlamaCpp, PP: 2, TS: "3,1"}
	v := Calculate(s, in.Model, in.Calibration)
	x := planner.Input{Model: in.Model, Calibration: in.Calibration}
	s.Apply(&x)
	p, err := planner.Report(x)
	if v.Error != "" || err != nil || v.Layout == nil || p.Layout == nil || len(v.Layout.Ranks) != 2 {
		t.Fatalf("Calculate(%+v): error %q, layout %+v; Report: %v", s, v.Error, v.Layout, err)
	}
	for i, r := range v.Layout.Ranks {
		q := &p.Layout.Ranks[i].Plan
		if r.TotalMiB != q.Total.MiB() || r.BudgetMiB != q.Budget.MiB() {
			t.Errorf("rank %q: %d of %d MiB, the plan's %d of %d", r.Label, r.TotalMiB, r.BudgetMiB, q.Total.MiB(), q.Budget.MiB())
		}
	}
	// 3:1 of 33 layers (the output layer the 33rd): 25 on device 0.
	if a, b := v.Layout.Ranks[0].Label, v.Layout.Ranks[1].Label; !strings.Contains(a, "layers 0-24") || !strings.Contains(b, "layers 25-31") {
		t.Errorf("rank labels %q, %q: want layers 0-24 and 25-31", a, b)
	}
	if !strings.HasSuffix(v.Launch, " -sm layer -ts 3,1") {
		t.Errorf("Launch = %q, want it to end in -sm layer -ts 3,1", v.Launch)
	}
	bad := s
	bad.TS = "3,1,1"
	if v := Calculate(bad, in.Model, in.Calibration); !strings.HasPrefix(v.Error, "llama.cpp tensor split (-ts): 3 shares for the layout's 2 GPUs") {
		t.Errorf("Calculate(ts %q).Error = %q, want the ts field's error", bad.TS, v.Error)
	}
}

// TestSplitLeverDropsSplit: a layout lever to another number of GPUs
// leaves llama.cpp's equal shares, as the planner applied it.
func TestSplitLeverDropsSplit(t *testing.T) {
	s := State{Engine: planner.EngineLlamaCpp, PP: 2, TS: "3,1"}
	if t2, ok := s.WithLever(planner.Lever{Knob: planner.KnobPipelineParallel, From: "2", To: "4"}); !ok || t2.TS != "" || t2.PP != 4 {
		t.Errorf("pipeline lever 2 -> 4: %+v, %v; want pp 4 and no ts", t2, ok)
	}
	if t2, ok := s.WithLever(planner.Lever{Knob: planner.KnobMaxSeqLen, To: "1024"}); !ok || t2.TS != "3,1" {
		t.Errorf("length lever: %+v, %v; want ts kept", t2, ok)
	}
}

// TestAcross: a layout's totals say they are sums over its GPUs.
func TestAcross(t *testing.T) {
	in := golden(t, "layout-llama-3.1-8b-tp2-h200")
	if v := Calculate(State{Batch: 1, Len: 1024, TP: 2}, in.Model, in.Calibration); v.Across != "all 2 GPUs" ||
		!strings.HasPrefix(v.BarLabel, "memory by tier, summed over all 2 GPUs: ") {
		t.Errorf("tp 2: Across %q, BarLabel %q", v.Across, v.BarLabel)
	}
	if v := Calculate(State{Batch: 1, Len: 1024}, in.Model, in.Calibration); v.Across != "" || !strings.HasPrefix(v.BarLabel, "memory by tier: ") {
		t.Errorf("one GPU: Across %q, BarLabel %q", v.Across, v.BarLabel)
	}
}

// TestLayoutBudgetNote: a layout's budget note says the budget is each
// GPU's and what it is on all of them.
func TestLayoutBudgetNote(t *testing.T) {
	in := golden(t, "layout-llama-3.1-8b-tp2-h200")
	for _, c := range []struct {
		s    State
		want string
	}{
		{State{Batch: 1, Len: 1024, TP: 2}, "Empty: the whole of each GPU, 143,155 MiB (139.8 GiB); 286,311 MiB (279.6 GiB) on all 2 GPUs."},
		{State{Batch: 1, Len: 1024, TP: 2, Budget: 40 * planner.GiB}, "Read as 40,960 MiB (40 GiB). It is each GPU's budget: 81,920 MiB (80 GiB) on all 2 GPUs."},
		{State{Batch: 1, Len: 1024}, "Empty: the whole of this GPU, 143,155 MiB (139.8 GiB)."},
	} {
		if v := Calculate(c.s, in.Model, in.Calibration); v.BudgetNote != c.want {
			t.Errorf("%+v: BudgetNote = %q, want %q", c.s, v.BudgetNote, c.want)
		}
	}
}

// TestSplitModeQuery: sm moves a llama.cpp layout's GPUs to pp (layer) or
// tp (tensor), is read and not written (the state's tp and pp say it), and
// changes nothing elsewhere; a bad value names sm.
func TestSplitModeQuery(t *testing.T) {
	for q, want := range map[string]struct {
		tp, pp int
		mode   string
	}{
		"engine=llama.cpp&pp=2&ts=3,1&sm=tensor":   {2, 0, "tensor"},
		"engine=llama.cpp&tp=2&pp=2&sm=Tensor":     {4, 0, "tensor"},
		"engine=llama.cpp&tp=4&sm=layer":           {0, 4, "layer"},
		"engine=llama.cpp&tp=2":                    {2, 0, "tensor"}, // no sm: as tp and pp say
		"engine=llama.cpp&pp=2&sm=":                {0, 2, "layer"},
		"engine=vllm&pp=2&sm=tensor":               {0, 2, "layer"}, // not llama.cpp: nothing moves
		"engine=llama.cpp&sm=tensor":               {0, 0, "layer"}, // one GPU
		"engine=llama.cpp&pp=2&dp=2&sm=tensor&ts=": {2, 0, "tensor"},
	} {
		s, err := ParseQuery(q)
		if err != nil || s.TP != want.tp || s.PP != want.pp || s.SplitMode() != want.mode {
			t.Errorf("ParseQuery(%q) = tp %d pp %d mode %s, %v; want %+v", q, s.TP, s.PP, s.SplitMode(), err, want)
			continue
		}
		if strings.Contains(s.Encode(), "sm=") {
			t.Errorf("Encode(%q) = %q writes sm", q, s.Encode())
		}
		var in planner.Input
		s.Apply(&in)
		if in.Parallel.Tensor != want.tp || in.Parallel.Pipeline != want.pp {
			t.Errorf("Apply(%q).Parallel = %+v, want tp %d pp %d", q, in.Parallel, want.tp, want.pp)
		}
	}
	for q, msg := range map[string]string{
		"engine=llama.cpp&pp=2&sm=row":     "has no row split on CUDA",
		"engine=llama.cpp&pp=2&sm=columns": `"columns" is not a split mode (layer or tensor)`,
		"engine=vllm&sm=none":              `"none" is not a split mode`,
	} {
		_, err := ParseQuery(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "sm" || !strings.Contains(fe.Msg, msg) {
			t.Errorf("ParseQuery(%q) = %v, want a FieldError for sm saying %q", q, err, msg)
		}
	}
}
