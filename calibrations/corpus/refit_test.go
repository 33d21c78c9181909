package corpus_test

import (
	"math"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/calibrations/refit"
)

// TestRefitVLLM holds the refit's residuals with the code's constants to
// the residual table's (Compare), and its fits to the runs that print the
// two figures.
func TestRefitVLLM(t *testing.T) {
	es := load(t)
	r := corpus.RefitVLLM(es, root)
	before := map[string]float64{}
	for i := range es {
		if row := corpus.Compare(&es[i], root); es[i].Engine == corpus.EngineVLLM && row.Err == nil && row.Entry.Outcome.Started() && row.KVTokens.Known {
			before[es[i].ID] = row.KVTokens.Residual()
		}
	}
	if len(r.Runs) != len(before) {
		t.Fatalf("RefitVLLM lists %d runs, the corpus has %d complete vLLM runs", len(r.Runs), len(before))
	}
	for _, run := range r.Runs {
		if b, ok := before[run.ID]; !ok || b != run.Before || math.IsNaN(run.After) {
			t.Errorf("%s: before %v (Compare %v), after %v", run.ID, run.Before, b, run.After)
		}
	}
	if r.NonTorch.Used == 0 || r.ActivationScale.Used == 0 {
		t.Errorf("fits from %d and %d runs", r.NonTorch.Used, r.ActivationScale.Used)
	}
}

// TestRefitCodeConstants plans every complete vLLM run with the code's
// constants put in through the overrides: the residuals are the code's,
// so CodeNonTorchGiB and CodeActivationScale are engine_vllm.go's.
func TestRefitCodeConstants(t *testing.T) {
	es := load(t)
	f := corpus.VLLMRefit{NonTorch: refit.Fit{Value: corpus.CodeNonTorchGiB}, ActivationScale: refit.Fit{Value: corpus.CodeActivationScale}}
	f.Replan(es, root)
	for _, run := range f.Runs {
		if math.Abs(run.After-run.Before) > 1e-4 {
			t.Errorf("%s: with the code's constants put in, residual %v; the code's %v", run.ID, run.After, run.Before)
		}
	}
	if len(f.Runs) == 0 || f.Within != f.WithinAfter {
		t.Errorf("%d runs; within 3 %%: %d, %d", len(f.Runs), f.Within, f.WithinAfter)
	}
}
