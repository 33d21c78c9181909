package corpus_test

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/cmdline"
)

// TestGraphLayerBytes recomputes planner.VLLMGraphLayerBytes, the one
// source of vLLM 0.21's CUDA-graph estimate, and the spread the estimate's
// detail quotes (planner.VLLMGraphLayerLow and VLLMGraphLayerHigh): over
// the corpus's plannable vLLM runs, one GPU stage each, that print the
// estimate GPUModelRunner.profile_cudagraph_memory returned (graphEstimate),
// that estimate over their graphs (planner.VLLMGraphs at the max_num_seqs
// and max_num_batched_tokens their plan's launch command states) times
// their decoder layers; the constant is the median, the spread the least
// and the greatest. What a capture took ("Graph capturing finished …
// took") is not such a figure: it is the real capture, after the KV cache
// is allocated and, from 0.21, after the estimate's own capture.
func TestGraphLayerBytes(t *testing.T) {
	var per []float64
	for _, e := range load(t) {
		if x, ok := graphLayerBytes(t, &e); ok {
			t.Logf("%s: %.0f KiB", e.ID, x/1024)
			per = append(per, x)
		}
	}
	if len(per) < 5 {
		t.Fatalf("%d runs print the CUDA-graph estimate, want 5 or more", len(per))
	}
	slices.Sort(per)
	med := per[len(per)/2]
	if len(per)%2 == 0 {
		med = (per[len(per)/2-1] + per[len(per)/2]) / 2
	}
	t.Logf("%d runs: median %.0f KiB, from %.0f to %.0f KiB", len(per), med/1024, per[0]/1024, per[len(per)-1]/1024)
	for _, c := range []struct {
		name string
		got  planner.Bytes
		want float64
	}{
		{"VLLMGraphLayerBytes", planner.VLLMGraphLayerBytes, med},
		{"VLLMGraphLayerLow", planner.VLLMGraphLayerLow, per[0]},
		{"VLLMGraphLayerHigh", planner.VLLMGraphLayerHigh, per[len(per)-1]},
	} {
		if want := math.Round(c.want / 1024); float64(c.got/planner.KiB) != want {
			t.Errorf("planner.%s = %d KiB, the corpus's figure is %.0f KiB", c.name, c.got/planner.KiB, want)
		}
	}
}

// The two lines that print the estimate: GPUModelRunner's own
// (vllm/v1/worker/gpu_model_runner.py, profile_cudagraph_memory: "Estimated
// CUDA graph memory: %.2f GiB total"), and, from 0.21, the worker's
// equivalence (vllm/v1/worker/gpu_worker.py, determine_available_memory:
// the utilization less the estimate over the device's total, to four
// places), which Model Runner V2's 0.29 prints without the first.
var (
	estimateLine    = regexp.MustCompile(`Estimated CUDA graph memory: ([0-9.]+) GiB total`)
	equivalenceLine = regexp.MustCompile(`--gpu-memory-utilization=([0-9.]+) is equivalent to --gpu-memory-utilization=([0-9.]+) without CUDA graph memory profiling`)
)

// graphEstimate is the CUDA-graph estimate e's log prints, GiB.
func graphEstimate(e *corpus.Entry) (float64, bool) {
	if m := estimateLine.FindStringSubmatch(e.Log); m != nil {
		x, err := strconv.ParseFloat(m[1], 64)
		return x, err == nil
	}
	m := equivalenceLine.FindStringSubmatch(e.Log)
	if m == nil || e.GPU.TotalGiB <= 0 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(m[1], 64)
	v, err2 := strconv.ParseFloat(m[2], 64)
	return (u - v) * e.GPU.TotalGiB, err1 == nil && err2 == nil && u > v
}

// graphLayerBytes is e's CUDA-graph estimate per graph and decoder layer,
// when e is such a run.
func graphLayerBytes(t *testing.T, e *corpus.Entry) (float64, bool) {
	est, ok := graphEstimate(e)
	if e.Engine != corpus.EngineVLLM || !ok {
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
	graphs := planner.VLLMGraphs(&limits.Serving.VLLM, limits.Limits.MaxBatch, limits.Limits.MaxPrefillTokens)
	return est * float64(planner.GiB) / float64(graphs*int64(in.Model.NumLayers())), true
}

// TestGraphEstimateLines holds graphEstimate to both of its lines.
func TestGraphEstimateLines(t *testing.T) {
	for _, c := range []struct {
		log   string
		total float64
		want  float64
		ok    bool
	}{
		{"INFO [gpu_model_runner.py:6142] Estimated CUDA graph memory: 0.52 GiB total\n", 23.99, 0.52, true},
		{"INFO [gpu_worker.py:640] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9086 without CUDA graph memory profiling.", 44.42, 0.0114 * 44.42, true},
		{"INFO Graph capturing finished in 6 secs, took 0.44 GiB", 44.42, 0, false},
		{"The current --gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9200 without CUDA graph memory profiling.", 44.42, 0, false},
	} {
		e := corpus.Entry{Log: c.log, GPU: corpus.GPU{TotalGiB: c.total}}
		got, ok := graphEstimate(&e)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("graphEstimate(%q) = %v, %v, want %v, %v", strings.TrimSpace(c.log)[:40], got, ok, c.want, c.ok)
		}
	}
}
