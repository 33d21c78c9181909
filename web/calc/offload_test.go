package calc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestOffloadQuery(t *testing.T) {
	for q, want := range map[string]int{
		"engine=llama.cpp&ngl=20":      20,
		"engine=llama.cpp&pp=2&ngl=34": 34,
		"engine=llama.cpp&ngl=0":       0,
		"engine=vllm&ngl=20":           20, // kept, not planned
		"engine=llama.cpp&ngl=4097":    4097,
	} {
		s, err := ParseQuery(q)
		if err != nil || s.NGL != want {
			t.Errorf("ParseQuery(%q).NGL = %d, %v; want %d", q, s.NGL, err, want)
			continue
		}
		if again, err := ParseQuery(s.Encode()); err != nil || again != s {
			t.Errorf("ParseQuery(Encode(%q)) = %+v, %v; want %+v", q, again, err, s)
		}
		if has := strings.Contains(s.Encode(), "ngl="); has != (want != 0) {
			t.Errorf("Encode(%q) = %q: ngl written %v, want %v", q, s.Encode(), has, want != 0)
		}
	}
	for q, msg := range map[string]string{
		"engine=llama.cpp&ngl=-1":   "-1 is not a layer count from 0",
		"engine=llama.cpp&ngl=4098": "4098 is not a layer count",
		"engine=llama.cpp&ngl=all":  `"all" is not a whole number`,
	} {
		_, err := ParseQuery(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "ngl" || !strings.Contains(fe.Msg, msg) {
			t.Errorf("ParseQuery(%q) = %v, want a FieldError for ngl saying %q", q, err, msg)
		}
	}
}

// TestOffloadPlanned: ngl is the planner's serving.llama_cpp.gpu_layers
// under llama.cpp only, and a layer split at -ngl 34 shows the planner's
// per-device figures and launch command.
func TestOffloadPlanned(t *testing.T) {
	for _, c := range []struct {
		s    State
		want int
	}{
		{State{Engine: planner.EngineLlamaCpp, NGL: 20}, 20},
		{State{Engine: planner.EngineLlamaCpp, PP: 2, NGL: 34}, 34},
		{State{Engine: planner.EngineVLLM, NGL: 20}, 0},
		{State{NGL: 20}, 0},
	} {
		var x planner.Input
		c.s.Apply(&x)
		if got := x.Serving.LlamaCpp.GPULayers; got != c.want {
			t.Errorf("%+v.Apply: gpu_layers %d, want %d", c.s, got, c.want)
		}
	}
	in := golden(t, "weights-exceed-llama70b-rtx5090")
	s := State{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, PP: 2, NGL: 34}
	v := Calculate(s, in.Model, in.Calibration)
	x := planner.Input{Model: in.Model, Calibration: in.Calibration}
	s.Apply(&x)
	p, err := planner.Report(x)
	if v.Error != "" || (err != nil && p.Layout == nil) || v.Layout == nil || len(v.Layout.Ranks) != 2 {
		t.Fatalf("Calculate(%+v): error %q, layout %+v; Report: %v", s, v.Error, v.Layout, err)
	}
	for i, r := range v.Layout.Ranks {
		q := &p.Layout.Ranks[i].Plan
		if r.TotalMiB != q.Total.MiB() {
			t.Errorf("rank %q: %d MiB, the plan's %d", r.Label, r.TotalMiB, q.Total.MiB())
		}
	}
	if !strings.Contains(v.Layout.Ranks[0].Label, "layers 47-63") || !strings.Contains(v.Launch, " -ngl 34 -sm layer -ts 1,1") {
		t.Errorf("-ngl 34: rank 0 %q, launch %q; want layers 47-63 and -ngl 34", v.Layout.Ranks[0].Label, v.Launch)
	}
}

// TestOffloadLever: a llama.cpp plan that does not fit with every layer on
// the GPUs offers the largest -ngl that fits as a lever, on one GPU and
// across a split, and the state it leads to fits.
func TestOffloadLever(t *testing.T) {
	in := golden(t, "weights-exceed-llama70b-rtx5090")
	for _, s := range []State{
		{Batch: 1, Len: 8192, Engine: planner.EngineLlamaCpp},
		{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, PP: 2},
	} {
		v := Calculate(s, in.Model, in.Calibration)
		if v.Error != "" || v.Fits || len(v.Levers) == 0 {
			t.Fatalf("%+v: error %q, fits %v, %d levers; want a plan that does not fit", s, v.Error, v.Fits, len(v.Levers))
		}
		l := v.Levers[0]
		if !strings.HasPrefix(l.Label, "GPU layers (-ngl) 81 → ") || !l.Fits {
			t.Fatalf("%+v: first lever %+v, want the -ngl lever", s, l)
		}
		t2, err := ParseQuery(l.Query)
		if err != nil || t2.NGL <= 0 || t2.NGL >= 81 {
			t.Fatalf("%+v: the lever's query %q reads as %+v, %v", s, l.Query, t2, err)
		}
		if !strings.HasSuffix(l.Label, "layers 0-"+strconv.Itoa(80-t2.NGL)+" on the CPU") {
			t.Errorf("%+v: lever %q, want it to say layers 0-%d stay on the CPU", s, l.Label, 80-t2.NGL)
		}
		if w := Calculate(t2, in.Model, in.Calibration); w.Error != "" || !w.Fits {
			t.Errorf("%+v: after the lever (-ngl %d): error %q, fits %v; want it to fit", s, t2.NGL, w.Error, w.Fits)
		}
		one := t2
		one.NGL++
		if w := Calculate(one, in.Model, in.Calibration); w.Fits {
			t.Errorf("%+v: -ngl %d, one more than the lever's, fits too", s, one.NGL)
		}
	}
}

// TestHostMemory: a llama.cpp plan states its host memory, the process's
// once: a split's devices' lists summed equal one GPU's at the same -ngl,
// and -ngl's CPU layers bring their KV (the CPU KV buffer) with them.
func TestHostMemory(t *testing.T) {
	in := golden(t, "weights-exceed-llama70b-rtx5090")
	split := Calculate(State{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, PP: 2, NGL: 34}, in.Model, in.Calibration)
	one := Calculate(State{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, NGL: 34}, in.Model, in.Calibration)
	if split.Host == "" || split.Host != one.Host {
		t.Errorf("host memory: split %q, one GPU %q; want them equal", split.Host, one.Host)
	}
	for _, want := range []string{"Host memory: 71,675 MiB (70 GiB): token_embd", "token_embd (CPU_Mapped) 563 MiB", "CPU KV buffer 48,128 MiB"} {
		if !strings.Contains(split.Host, want) {
			t.Errorf("host memory %q, want it to say %q", split.Host, want)
		}
	}
	if v := Calculate(State{Batch: 4, Len: 8192, Engine: planner.EngineVLLM}, in.Model, in.Calibration); v.Host != "" {
		t.Errorf("vLLM: host memory %q, want none", v.Host)
	}
}

// TestEngineNotes: the view carries the engine's notes as the planner
// writes them, the binding rank's for a layout; a plan with none has none.
func TestEngineNotes(t *testing.T) {
	in := golden(t, "weights-exceed-llama70b-rtx5090")
	for _, s := range []State{
		{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp},
		{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, PP: 2},
		{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp, NGL: 34},
		{Batch: 4, Len: 8192},
	} {
		v := Calculate(s, in.Model, in.Calibration)
		pin := planner.Input{Model: in.Model, Calibration: in.Calibration}
		s.Apply(&pin)
		p, err := planner.Report(pin)
		var f *planner.Failure
		if err != nil && !errors.As(err, &f) {
			t.Fatalf("Report(%+v): %v", s, err)
		}
		var want []string
		if b := bindingPlan(&p); b.Engine != nil {
			want = b.Engine.Notes
		}
		if strings.Join(v.Notes, "\n") != strings.Join(want, "\n") {
			t.Errorf("%+v: notes %q, want the planner's %q", s, v.Notes, want)
		}
	}
	v := Calculate(State{Batch: 4, Len: 65536, Engine: planner.EngineLlamaCpp}, in.Model, in.Calibration)
	var asked, fits int
	if len(v.Notes) > 0 {
		fmt.Sscanf(v.Notes[len(v.Notes)-1], "as asked, -ngl %d does not fit: the launch command is the one with -ngl %d,", &asked, &fits)
	}
	if fits == 0 || asked <= fits || !strings.Contains(v.Launch, " -ngl "+strconv.Itoa(fits)) {
		t.Errorf("llama.cpp over budget: notes %q, launch %q; want the launch command at the -ngl that fits and a note naming the one asked",
			v.Notes, v.Launch)
	}
	if v := Calculate(State{Batch: 4, Len: 8192}, in.Model, in.Calibration); v.Notes != nil {
		t.Errorf("vramplan's engine: notes %q, want none", v.Notes)
	}
}
