package corpus_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/cmdline"
)

// TestGraphLayerBytes recomputes planner.VLLMGraphLayerBytes, the one
// source of vLLM 0.21's CUDA-graph estimate: over the corpus's plannable
// vLLM runs from 0.11 on, one GPU stage each, that print what their
// capture took ("Graph capturing finished … took X GiB", 0.00 included,
// a negative figure left out as the measurement's artefact; not 0.21's
// "Estimated CUDA graph memory"), the median of that figure over their
// graphs (planner.VLLMGraphs at the max_num_seqs and
// max_num_batched_tokens their plan's launch command states) times their
// decoder layers. It also prints the spread that the estimate's detail
// quotes, under -v.
func TestGraphLayerBytes(t *testing.T) {
	var per []float64
	for _, e := range load(t) {
		if x, ok := graphLayerBytes(t, &e); ok {
			per = append(per, x)
		}
	}
	if len(per) < 10 {
		t.Fatalf("%d runs print a capture's memory, want 10 or more", len(per))
	}
	slices.Sort(per)
	med := per[len(per)/2]
	if len(per)%2 == 0 {
		med = (per[len(per)/2-1] + per[len(per)/2]) / 2
	}
	t.Logf("%d runs: median %.0f KiB, from %.0f to %.0f KiB", len(per), med/1024, per[0]/1024, per[len(per)-1]/1024)
	if want := math.Round(med / 1024); float64(planner.VLLMGraphLayerBytes/planner.KiB) != want {
		t.Errorf("planner.VLLMGraphLayerBytes = %d KiB, the corpus's median is %.0f KiB", planner.VLLMGraphLayerBytes/planner.KiB, want)
	}
}

// since is the first release whose captures the figure is taken over.
var since, _ = planner.ParseVersion("0.11")

// graphLayerBytes is e's captured graph memory per graph and decoder
// layer, when e is such a run.
func graphLayerBytes(t *testing.T, e *corpus.Entry) (float64, bool) {
	took, ok := e.Values[corpus.FigureGraphs]
	if e.Engine != corpus.EngineVLLM || !ok || took < 0 || !strings.Contains(e.Figures[corpus.FigureGraphs], "took") {
		return 0, false
	}
	v, err := planner.ParseVersion(corpus.Release(e))
	if err != nil || corpus.Release(e) == "" || v.Compare(since) < 0 {
		return 0, false
	}
	in, _, err := corpus.Input(e, root)
	if err != nil || max(in.Parallel.Pipeline, 1) > 1 {
		return 0, false
	}
	p, _ := planner.Report(in)
	if p.Engine == nil && p.Layout != nil {
		p = p.Layout.Ranks[0].Plan
	}
	if p.Engine == nil { // not plannable: the residual table says why
		return 0, false
	}
	c, err := cmdline.Parse(p.Engine.Launch)
	var limits planner.Input
	if err == nil {
		_, err = c.Apply(&limits)
	}
	if err != nil {
		t.Fatalf("%s: the plan's launch %q: %v", e.ID, p.Engine.Launch, err)
	}
	graphs := planner.VLLMGraphs(limits.Limits.MaxBatch, limits.Limits.MaxPrefillTokens)
	return took * float64(planner.GiB) / float64(graphs*int64(in.Model.NumLayers())), true
}
