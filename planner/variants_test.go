package planner_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// variantInput is a catalog model on H200s at batch 16 × 32k tokens.
func variantInput(t *testing.T, id string, p planner.Parallel) planner.Input {
	t.Helper()
	m, err := catalog.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup("h200")
	if err != nil {
		t.Fatal(err)
	}
	return planner.Input{Model: m, Calibration: c, Parallel: p, Limits: planner.Limits{MaxBatch: 16, MaxSeqLen: 32768}}
}

func weightsLever(t *testing.T, in planner.Input) planner.Lever {
	t.Helper()
	p, err := planner.Report(in)
	var f *planner.Failure
	if !errors.As(err, &f) {
		t.Fatalf("Report(%s) = %v, want a failure", in.Model.ID, err)
	}
	for _, l := range p.Levers {
		if l.Knob == planner.KnobWeights {
			return l
		}
	}
	t.Fatalf("Report(%s at %s).Levers = %+v: no weights lever", in.Model.ID, in.Parallel.String(), p.Levers)
	return planner.Lever{}
}

// applyWeights applies a weights lever: the variant, and the layout it names.
func applyWeights(t *testing.T, in planner.Input, l planner.Lever) planner.Input {
	t.Helper()
	id, layout, more := strings.Cut(l.To, " on ")
	m, ok := in.Model.WithVariant(id)
	if !ok {
		t.Fatalf("lever %q names no variant of %s", l.To, in.Model.ID)
	}
	in.Model = m
	if more {
		f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", "×", " ").Replace(layout))
		in.Parallel = planner.Parallel{}
		for i := 0; i+1 < len(f); i++ {
			n, _ := strconv.Atoi(f[i+1])
			switch f[i] {
			case "tensor_parallel":
				in.Parallel.Tensor = n
			case "pipeline_parallel":
				in.Parallel.Pipeline = n
			}
		}
		if want, _ := strconv.Atoi(f[0]); in.Parallel.GPUs() != want {
			t.Fatalf("lever %q: its layout is %d GPUs", l.To, in.Parallel.GPUs())
		}
	}
	return in
}

func fits(t *testing.T, in planner.Input) bool {
	t.Helper()
	p, err := planner.Report(in)
	var f *planner.Failure
	if err != nil && !errors.As(err, &f) {
		t.Fatal(err)
	}
	return p.Fits
}

// TestWeightsLever checks the weight-format lever on one GPU and on a
// layout: the format it names fits where it says, and it is smaller than
// the model's own.
func TestWeightsLever(t *testing.T) {
	for _, c := range []struct {
		id      string
		p       planner.Parallel
		to      string // the lever's To, up to " on "
		onMore  bool   // the format fits only on more GPUs than the input's
		fewerTh int    // and on fewer than this many
	}{
		{"qwen3-next-80b-a3b-instruct-bf16", planner.Parallel{}, "qwen3-next-80b-a3b-instruct-q4_k_m", false, 0},
		{"deepseek-v3-fp8", planner.Parallel{}, "deepseek-v3-q4_k_m", true, 6},
		{"deepseek-v3-fp8", planner.Parallel{Tensor: 4}, "deepseek-v3-q4_k_m", false, 0},
	} {
		in := variantInput(t, c.id, c.p)
		l := weightsLever(t, in)
		id, _, more := strings.Cut(l.To, " on ")
		if id != c.to || more != c.onMore || !l.Fits || l.From != c.id {
			t.Errorf("%s at %s: weights lever %+v, want %s (on more GPUs: %v)", c.id, c.p.String(), l, c.to, c.onMore)
			continue
		}
		after := applyWeights(t, in, l)
		if !fits(t, after) {
			t.Errorf("%s at %s: lever %q applied does not fit", c.id, c.p.String(), l.To)
		}
		if c.fewerTh > 0 {
			if n := after.Parallel.GPUs(); n >= c.fewerTh {
				t.Errorf("%s: lever %q uses %d GPUs, the model's own format needs %d", c.id, l.To, n, c.fewerTh)
			}
			if g, _ := planner.MinGPUs(in); g.GPUs != c.fewerTh {
				t.Errorf("MinGPUs(%s) = %d, the test assumes %d", c.id, g.GPUs, c.fewerTh)
			}
		}
		if v, _ := in.Model.WithVariant(id); v.Weights.Bytes >= in.Model.Weights.Bytes {
			t.Errorf("%s: lever to %s, whose weights are not smaller", c.id, id)
		}
	}
}

// TestNoWeightsLever: a model without smaller formats offers none.
func TestNoWeightsLever(t *testing.T) {
	in := variantInput(t, "qwen3-next-80b-a3b-instruct-q4_k_m", planner.Parallel{})
	in.Limits.MaxSeqLen, in.Limits.MaxBatch = 262144, 64
	p, _ := planner.Report(in)
	if p.Fits || len(p.Levers) == 0 {
		t.Fatalf("Report(%s at 64 × 256k) fits %v with %d levers: the test needs a failure with levers", in.Model.ID, p.Fits, len(p.Levers))
	}
	for _, l := range p.Levers {
		if l.Knob == planner.KnobWeights {
			t.Errorf("Report(%s) offers %+v, a larger format", in.Model.ID, l)
		}
	}
}

func TestVariantsValidated(t *testing.T) {
	in := variantInput(t, "qwen3-8b-bf16", planner.Parallel{})
	in.Model.Variants[0].Weights.Bytes = -1
	var ie *planner.InputError
	if err := planner.Validate(&in); !errors.As(err, &ie) || ie.Field != "model.variants[0].weights.bytes" {
		t.Errorf("Validate(a variant of -1 bytes) = %v, want an InputError for model.variants[0].weights.bytes", err)
	}
}
