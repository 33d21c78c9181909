package corpus

import (
	"errors"
	"math"
	"slices"

	"github.com/vramplan/vramplan/planner"
)

// Row is one entry planned beside what its engine printed. A figure the
// log does not print is 0 in Real; a residual is (plan − real) / real.
type Row struct {
	Entry *Entry
	Band  Band
	// Calibration names the calibration whose overheads the plan used.
	Calibration string
	// Err is why the entry could not be planned; the figures are then 0.
	Err error
	// Refused reports whether the plan does not fit: a failed start's
	// plan should refuse it, a started one's should not.
	Refused bool
	// KVTokens and Weights (GiB, one rank) are the plan's and the log's.
	KVTokens Pair
	Weights  Pair
	// KVGiB is the memory vLLM gave its KV cache (one rank); Activation,
	// NonTorch and Graphs are vLLM's other charges, GiB (one rank).
	KVGiB, Activation, NonTorch, Graphs Pair
	// TP and PP are the tensor- and pipeline-parallel sizes planned.
	TP, PP int
	// Class is the run's class (planner.ClassOf), valid when Err is nil.
	Class planner.RunClass

	block int // the plan's block size, for a log that counts blocks
}

// Pair is a figure as planned and as printed.
type Pair struct {
	Plan, Real float64
	// Known reports whether the log printed the figure.
	Known bool
}

// Residual is (plan − real) / real, NaN when the figure is not known.
func (p Pair) Residual() float64 {
	if !p.Known || p.Real == 0 {
		return math.NaN()
	}
	return (p.Plan - p.Real) / p.Real
}

// Within reports whether the figure is known and its residual at most tol.
func (p Pair) Within(tol float64) bool { return math.Abs(p.Residual()) <= tol }

// Compare plans e from under root (the repository root) and sets the plan
// beside its log's figures.
func Compare(e *Entry, root string) Row { return compareWith(e, root, nil) }

// compareWith is Compare with tweak, when not nil, applied to the input
// before it is planned.
func compareWith(e *Entry, root string, tweak func(in *planner.Input)) Row {
	band, _ := BandOf(e) // validate checked it
	r := Row{Entry: e, Band: band}
	in, cal, err := Input(e, root)
	if err == nil && tweak != nil {
		tweak(&in)
	}
	r.Calibration, r.TP, r.PP = cal, max(in.Parallel.Tensor, 1), max(in.Parallel.Pipeline, 1)
	if err != nil {
		r.Err = err
		return r
	}
	bi := slices.Index(Bands, band)
	if bi < 0 {
		r.Err = e.fail("version", "%q is in no band", cut(e.Version, 40))
		return r
	}
	r.Class = planner.ClassOf(&in, bi)
	p, err := planner.Report(in)
	var fail *planner.Failure
	if err != nil && !errors.As(err, &fail) {
		r.Err = err
		return r
	}
	r.Refused = !p.Fits
	r.plan(&p)
	r.real(e)
	return r
}

// plan reads the plan's figures: the weights of the first rank, the
// fewest KV tokens of any rank and that rank's activation (vLLM and SGLang both size every rank's
// cache to the smallest).
func (r *Row) plan(p *planner.Plan) {
	ranks := []*planner.Plan{p}
	if p.Layout != nil {
		ranks = ranks[:0]
		for i := range p.Layout.Ranks {
			ranks = append(ranks, &p.Layout.Ranks[i].Plan)
		}
	}
	r.Weights.Plan = gib(ranks[0].LoadedWeights())
	r.NonTorch.Plan = gib(itemBytes(ranks[0], "non_torch"))
	r.Graphs.Plan = gib(itemBytes(ranks[0], "cuda_graphs"))
	r.KVTokens.Plan, r.KVGiB.Plan = math.Inf(1), math.Inf(1)
	binding := ranks[0]
	for _, rp := range ranks {
		if a := rp.Engine; a != nil && a.Pool != nil {
			if float64(a.Pool.Tokens) < r.KVTokens.Plan {
				binding = rp
			}
			r.KVTokens.Plan = min(r.KVTokens.Plan, float64(a.Pool.Tokens))
			r.KVGiB.Plan = min(r.KVGiB.Plan, gib(a.Pool.PoolBytes))
			r.block = a.Pool.BlockTokens
		}
	}
	if math.IsInf(r.KVTokens.Plan, 1) {
		r.KVTokens.Plan, r.KVGiB.Plan = 0, 0
	}
	// The activation is the binding rank's: a pipeline's last stage warms
	// the sampler up and its first does not, and the rank with the fewest
	// tokens sizes every rank's cache.
	r.Activation.Plan = gib(itemBytes(binding, "activation_peak"))
}

// itemBytes is the bytes of p's items of key.
func itemBytes(p *planner.Plan, key string) planner.Bytes {
	var b planner.Bytes
	for _, it := range p.Items {
		if it.Key == key {
			b += it.Bytes
		}
	}
	return b
}

func gib(b planner.Bytes) float64 { return float64(b) / float64(planner.GiB) }

// real reads the log's figures.
func (r *Row) real(e *Entry) {
	v := e.Values
	if t, ok := v[FigureKVTokens]; ok {
		r.KVTokens.Real, r.KVTokens.Known = t, true
	} else if b, ok := v[FigureGPUBlocks]; ok {
		r.KVTokens.Real, r.KVTokens.Known = b*float64(r.block), r.block > 0
	}
	if w, ok := v[FigureWeights]; ok {
		r.Weights.Real, r.Weights.Known = w, true
	} else if a, ok := v[FigureAvailBefore]; ok {
		if b, ok := v[FigureAvailAfter]; ok {
			r.Weights.Real, r.Weights.Known = a-b, true
		}
	}
	for _, f := range []struct {
		p *Pair
		k FigureKey
	}{{&r.KVGiB, FigureKVMemory}, {&r.Activation, FigureActivation}, {&r.NonTorch, FigureNonTorch}, {&r.Graphs, FigureGraphs}} {
		if x, ok := v[f.k]; ok {
			f.p.Real, f.p.Known = x, true
		}
	}
}
