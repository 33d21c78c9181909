package planner

// This file holds the failure report's layout levers and the fewest-GPUs
// search. When the weights alone, or the plan, exceed one GPU, the levers
// a person needs are more GPUs: the tensor-parallel size that fits, or the
// pipeline depth, and the fewest GPUs of this calibration in any layout.
// A layout's other levers are the binding rank's, each checked on every
// rank, since a change of max_seq_len or batch applies to all of them.

import "strconv"

// Knobs of a parallel layout.
const (
	KnobTensorParallel   Knob = "tensor_parallel"
	KnobPipelineParallel Knob = "pipeline_parallel"
	KnobGPUs             Knob = "gpus"
)

// GPUCount is the fewest GPUs of one calibration that hold a plan, and the
// layout that holds it with the most headroom on its binding rank.
type GPUCount struct {
	GPUs     int      `json:"gpus"` // 0 when no layout within the search fits
	Parallel Parallel `json:"parallel"`
	Headroom Bytes    `json:"headroom_bytes"` // the binding rank's
}

// maxGPUWork bounds a report's layout searches together (the layout
// levers and the fewest-GPUs search), in work units (layoutWork). A model
// at the input bounds (4,096 layers) under a budget that no layout fits
// would otherwise try 4,096 layouts of up to 4,096 GPUs each, and a
// failure report on it did not finish in minutes; with the bound, a
// report does about a quarter of a million units (a few hundred
// layouts at most), and a layout it did not reach is reported as no fit.
// Real models (under ~200 layers and ~2,000 matrices) stay far below it:
// eight GPUs of a 100-layer model cost about 20,000 units.
const maxGPUWork = 1 << 18

// MinGPUs reports the fewest GPUs of the input's calibration, one replica
// with neither data nor expert parallelism, that fit the input's limits,
// and the tensor × pipeline layout that does. It reports GPUs 0 when no
// layout of up to 4,096 GPUs fits.
func MinGPUs(in Input) (GPUCount, error) {
	if err := Validate(&in); err != nil {
		return GPUCount{}, err
	}
	return minGPUs(&in, nil), nil
}

func minGPUs(in *Input, st *stopper) GPUCount {
	work := 0
	return minGPUsShared(in, &work, st)
}

// nodeGPUs is how many GPUs one node usually holds: the GPUs tensor
// parallelism spans before a layout goes to pipeline stages (vLLM's and
// SGLang's guidance: tensor parallel within a node, pipeline across).
const nodeGPUs = 8

// A layoutRule picks one of the layouts of the same count that fit.
type layoutRule int

const (
	// layoutMostHeadroom picks the one with the most headroom on its
	// binding rank (the failure report's lever, MinGPUs).
	layoutMostHeadroom layoutRule = iota
	// layoutTensorFirst picks the largest tensor-parallel size of at most
	// nodeGPUs, the rest in pipeline stages, as people deploy (GPUs); it
	// tries no larger tensor-parallel size.
	layoutTensorFirst
)

// tensors is how many tensor-parallel sizes rule r tries for n GPUs.
func (r layoutRule) tensors(n int) int {
	if r == layoutTensorFirst {
		return min(n, nodeGPUs)
	}
	return n
}

// tensorAt is the i-th tensor-parallel size, from i = 1, that rule r tries
// for n GPUs: under layoutTensorFirst, from the largest of at most
// nodeGPUs down, so that the first that fits is the one the rule picks.
func (r layoutRule) tensorAt(i, n int) int {
	if r == layoutTensorFirst {
		return r.tensors(n) - i + 1
	}
	return i
}

// minGPUsShared is minGPUs charging *work, which other layout searches of
// the same report may have charged already.
func minGPUsShared(in *Input, work *int, st *stopper) GPUCount {
	return minGPUsBy(in, layoutMostHeadroom, work, st)
}

// minGPUsBy is the fewest-GPUs search picking among the layouts of the
// fewest GPUs by rule r.
func minGPUsBy(in *Input, r layoutRule, work *int, st *stopper) GPUCount {
	t := *in
	t.Parallel, t.Rank = Parallel{}, nil
	room := roomPerGPU(&t)
	if room <= 0 {
		return GPUCount{}
	}
	for n := max(1, int(min(ceilDiv(int64(t.Model.Weights.Bytes), int64(room)), maxWorld))); n <= maxWorld && *work < maxGPUWork && !st.stop(); n++ {
		if best, ok := bestOfCount(&t, n, r, work, st); ok {
			return best
		}
	}
	return GPUCount{}
}

// bestOfCount tries every tensor × pipeline layout of n GPUs and returns
// the one rule r prefers of those that fit, adding the work each costs to
// *work and stopping once it passes maxGPUWork or st reports true (then it
// reports no fit).
func bestOfCount(t *Input, n int, r layoutRule, work *int, st *stopper) (GPUCount, bool) {
	var best GPUCount
	found := false
	for i := 1; i <= r.tensors(n) && *work < maxGPUWork; i++ {
		tp := r.tensorAt(i, n)
		if n%tp != 0 {
			continue
		}
		cost := layoutWork(t, n, n/tp)
		if *work+cost > maxGPUWork {
			*work = maxGPUWork
			break
		}
		*work += cost
		if st.stop() {
			return GPUCount{}, false
		}
		p := Parallel{Tensor: tp, Pipeline: n / tp}
		over, ok := tryLayout(t, p)
		if ok && over <= 0 && (!found || -over > best.Headroom) {
			best, found = GPUCount{GPUs: n, Parallel: p.sizes(), Headroom: -over}, true
			if r == layoutTensorFirst {
				break // the rule's order: the first that fits is its pick
			}
		}
	}
	return best, found
}

// layoutWork is what trying a layout of n GPUs in pp stages costs: each
// rank is matched against the distinct ranks found so far (one per stage),
// and the stages' models copy the layers and split the matrices between
// them.
func layoutWork(in *Input, n, pp int) int {
	return n*pp + in.Model.NumLayers() + len(in.Model.Weights.Matrices)
}

// tryLayout plans in under layout p; ok is false when p is not a valid layout.
func tryLayout(in *Input, p Parallel) (over Bytes, ok bool) {
	t := *in
	t.Parallel = p
	if len(p.TensorSplit) != p.pp() { // another depth: the engine's own shares, as the lever applied gets them
		t.Parallel.TensorSplit = nil
		normalizeEngine(&t)
	}
	if validateParallel(&t) != nil {
		return 0, false
	}
	if !t.Parallel.multi() {
		return evalTotal(&t) - budgetOf(&t), true
	}
	over, _ = layoutOver(&t)
	return over, true
}

// withLayoutLevers adds the layout levers to a failing report's levers
// when none of them fits: the tensor-parallel size or pipeline depth that
// fits, and the fewest GPUs. Once st reports true it tries no more
// layouts, and the caller discards the report.
func withLayoutLevers(in *Input, ls []Lever, st *stopper) []Lever {
	var budget []Lever
	rest := make([]Lever, 0, len(ls)+3)
	for _, l := range ls {
		if l.Knob == KnobBudget {
			budget = append(budget, l)
		} else if l.Fits {
			return ls
		} else {
			rest = append(rest, l)
		}
	}
	base, cur := baseOver(in), in.Parallel.sizes()
	gpus, work := 0, 0 // the layout searches below share one work bound
	out := make([]Lever, 0, len(ls)+3)
	if l, n, ok := growLever(in, KnobTensorParallel, cur.Tensor, in.Parallel.GPUs()/cur.Tensor, base, &work, st); ok {
		out, gpus = append(out, l), n
	} else if l, n, ok := growLever(in, KnobPipelineParallel, cur.Pipeline, in.Parallel.GPUs()/cur.Pipeline, base, &work, st); ok {
		out, gpus = append(out, l), n
	}
	if c := minGPUsShared(in, &work, st); c.GPUs > 0 && (gpus == 0 || c.GPUs < gpus) {
		out = append(out, Lever{Knob: KnobGPUs, From: strconv.Itoa(in.Parallel.GPUs()),
			To: strconv.Itoa(c.GPUs) + " (" + c.Parallel.String() + ")", Frees: base + c.Headroom, Fits: true})
		gpus = c.GPUs
	}
	if l, ok := weightsLever(in, base, gpus, &work, st); ok {
		out = append(out, l)
	}
	return clip(append(append(out, rest...), budget...))
}

// baseOver is how far the input's own layout is over, on its worst rank.
func baseOver(in *Input) Bytes {
	if !in.Parallel.multi() {
		return evalTotal(in) - budgetOf(in)
	}
	over, _ := layoutOver(in)
	return over
}

// growLever doubles one layout size from cur until the layout fits; n is
// the GPUs the fitting layout uses. Each layout tried is charged to *work.
func growLever(in *Input, k Knob, cur, others int, base Bytes, work *int, st *stopper) (Lever, int, bool) {
	for v := cur * 2; v <= MaxParallel && v*others <= maxWorld && !st.stop(); v *= 2 {
		p := in.Parallel
		if k == KnobTensorParallel {
			p.Tensor = v
		} else {
			p.Pipeline = v
		}
		if *work += layoutWork(in, v*others, p.sizes().Pipeline); *work > maxGPUWork {
			break
		}
		if over, ok := tryLayout(in, p); ok && over <= 0 {
			return Lever{Knob: k, From: strconv.Itoa(cur), To: strconv.Itoa(v), Frees: base - over, Fits: true}, v * others, true
		} else if !ok && k == KnobPipelineParallel {
			break // more stages than layers: no deeper pipeline is valid either
		}
	}
	return Lever{}, 0, false
}

// String renders the layout's sizes the way the levers name them.
func (p Parallel) String() string {
	s := "tensor_parallel " + strconv.Itoa(p.tp()) + " × pipeline_parallel " + strconv.Itoa(p.pp())
	if p.ep() > 1 {
		s += " × expert_parallel " + strconv.Itoa(p.ep())
	}
	if p.dp() > 1 {
		s += " × data_parallel " + strconv.Itoa(p.dp())
	}
	return s
}

// layoutFailureLevers are a failing layout's levers: the binding rank's,
// each kept as fitting only if it fits every rank, the budget each GPU
// needs, and the layout levers.
func layoutFailureLevers(in *Input, gs []rankGroup, bind int, st *stopper) ([]Lever, *Combination) {
	ls, combo := levers(newTrials(&gs[bind].in, st.stop))
	out := make([]Lever, 0, len(ls))
	for _, l := range ls {
		if l.Knob == KnobBudget {
			need := maxRankTotal(gs)
			l.To, l.Frees = fmtBytes(roundUp(need, MiB)), need-budgetOf(&gs[bind].in)
		} else {
			l.Fits = l.Fits && allFit(gs, l)
		}
		out = append(out, l)
	}
	if combo != nil && !allFit(gs, combo.Changes...) {
		combo = nil
	}
	return withLayoutLevers(in, out, st), combo
}

func maxRankTotal(gs []rankGroup) Bytes {
	var m Bytes
	for i := range gs {
		m = max(m, evalTotal(&gs[i].in))
	}
	return m
}

// allFit reports whether every rank fits with the changes applied.
func allFit(gs []rankGroup, changes ...Lever) bool {
	for i := range gs {
		t := gs[i].in
		for _, l := range changes {
			if !applyLever(&t, l) {
				return false
			}
		}
		if evalTotal(&t) > budgetOf(&t) {
			return false
		}
	}
	return true
}

// applyLever applies a lever's change to t, finding its knob's rung by the
// value the lever names; it reports false for a change it cannot make.
func applyLever(t *Input, l Lever) bool {
	for _, k := range knobsFor(t) {
		if k.name != l.Knob {
			continue
		}
		for _, r := range k.rungs {
			if r.value() == l.To {
				r.applyTo(t)
				return true
			}
		}
		if n, err := strconv.Atoi(l.To); err == nil && len(k.rungs) > 0 && k.rungs[0].set != nil {
			k.rungs[0].set(t, n)
			return true
		}
	}
	return false
}

// noteGPUs adds to a weights failure how many GPUs' worth the weights are
// and which layout lever fits them.
func noteGPUs(p *Plan) {
	f := p.Failure
	if f == nil || f.Reason != FailureWeights || p.Budget <= 0 {
		return
	}
	worth := float64(p.Weights) / float64(p.Budget)
	f.Message += "; that is " + strconv.FormatFloat(worth, 'f', 1, 64) + " GPUs' worth of this budget"
	for _, l := range p.Levers {
		if layoutKnob(l.Knob) {
			f.Message += ", and " + string(l.Knob) + " " + l.From + " -> " + l.To + " fits"
			return
		}
	}
}

// layoutKnob reports whether k changes the parallel layout.
func layoutKnob(k Knob) bool {
	return k == KnobTensorParallel || k == KnobPipelineParallel || k == KnobGPUs
}

// stopper is a caller's stop check (Options.Stop) made sticky: once it
// reports true it is not asked again, and stopped stays true. A nil
// stopper, or one without a check, never stops.
type stopper struct {
	f       func() bool
	stopped bool
}

func (s *stopper) stop() bool {
	if s == nil || s.f == nil {
		return false
	}
	if !s.stopped && s.f() {
		s.stopped = true
	}
	return s.stopped
}
