package planner

import (
	"sort"
	"strconv"
)

// This file computes the failure report's levers (seed A4.3, extended): for
// every knob, the smallest change of that knob alone that makes the plan
// fit and the bytes it frees; and, when no single knob suffices, the
// smallest combination that does.

// Knob names an input field a lever changes; it is the field's JSON name.
type Knob string

// Knobs.
const (
	KnobMaxSeqLen     Knob = "max_seq_len"
	KnobKVDtype       Knob = "kv_dtype"
	KnobMaxBatch      Knob = "max_batch"
	KnobWeightCache   Knob = "weight_cache"
	KnobVision        Knob = "vision"
	KnobSpecDecodeK   Knob = "spec_decode_k"
	KnobCUDAGraphs    Knob = "cuda_graphs"
	KnobResidualRing  Knob = "residual_ring_tokens"
	KnobSnapshots     Knob = "recurrent_snapshots"
	KnobEagerLoading  Knob = "eager_module_loading"
	KnobPrefillTokens Knob = "max_prefill_tokens"
	KnobBlockTokens   Knob = "block_tokens"
	KnobBudget        Knob = "budget_bytes"
)

// Lever is one change of one knob and what it does to the plan.
type Lever struct {
	Knob  Knob   `json:"knob"`
	From  string `json:"from"`
	To    string `json:"to"`
	Frees Bytes  `json:"frees_bytes"` // for the budget knob, the bytes added
	Fits  bool   `json:"fits"`
	// Limit is the exact cliff of a numeric knob: the largest value that
	// fits, where To is the nearest value people configure.
	Limit string `json:"limit,omitempty"`
}

// Combination is the smallest set of changes that fits when no single
// lever does: fewest knobs, then fewest steps along each knob's ladder.
type Combination struct {
	Changes []Lever `json:"changes"`
	Frees   Bytes   `json:"frees_bytes"`
}

// MaxLevers is how many levers a report shows.
const MaxLevers = 3

// rung is one value on a knob's ladder, applied to a copy of the input.
type rung struct {
	name  string            // the value, for knobs whose values are names
	n     int               // the value, for integer knobs (set is not nil)
	set   func(*Input, int) // an integer knob's setter, shared by its rungs
	apply func(*Input)      // how other knobs set their value
}

// value is the rung's value as a lever reports it. An integer rung keeps
// its number and its knob's setter rather than a string and a closure of
// its own, so a ladder costs no allocation per rung; it is formatted only
// when a lever names it.
func (r rung) value() string {
	if r.set != nil {
		return strconv.Itoa(r.n)
	}
	return r.name
}

// applyTo sets the rung's value in t.
func (r rung) applyTo(t *Input) {
	if r.set != nil {
		r.set(t, r.n)
		return
	}
	r.apply(t)
}

// knob is a ladder of values below the current one, mildest first.
type knob struct {
	name  Knob
	from  string
	rungs []rung
	exact func(*Input, *shape, Bytes) (rung, bool) // optional exact single-knob solution; the shape is the input's
	// exactTo makes the exact solution the lever's To: for knobs people set
	// to any integer, such as max_batch, rather than to round values.
	exactTo bool
}

// trials is what a failure report's lever search shares: the input, the
// copy of it every trial modifies (see applied), the model's shape per KV
// format, and the caller's stop check. A trials is used by one goroutine.
type trials struct {
	in, t   *Input
	shapes  shapes
	stop    func() bool
	stopped bool
}

func newTrials(in *Input, stop func() bool) *trials {
	return &trials{in: in, t: new(Input), shapes: shapes{m: &in.Model}, stop: stop}
}

// shape returns the shape of in, which has in's model.
func (tr *trials) shape(in *Input) *shape { return tr.shapes.get(in.Limits.KVDtype) }

// total returns the total of a modified input, treating automatic batch as
// one sequence: the admission floor is the question. Once the stop check
// reports true it plans nothing more and every trial fails to fit, so each
// search ends at its next step.
func (tr *trials) total(in *Input) Bytes {
	if tr.stopped || tr.stop != nil && tr.stop() {
		tr.stopped = true
		return maxBudget + 1
	}
	l := resolve(&in.Limits)
	l.batch = max(l.batch, 1)
	return compute(in, tr.shape(in), l).total
}

// evalTotal is the total of one input as a trial sees it, for callers that
// evaluate a few inputs rather than search.
func evalTotal(in *Input) Bytes {
	sh := newShape(&in.Model, in.Limits.KVDtype)
	l := resolve(&in.Limits)
	l.batch = max(l.batch, 1)
	return compute(in, &sh, l).total
}

func levers(tr *trials) ([]Lever, *Combination) {
	in := tr.in
	budget, base := budgetOf(in), tr.total(in)
	knobs := knobsFor(in)
	out := make([]Lever, 0, len(knobs)+1)
	for i := range knobs {
		if lv, ok := single(tr, &knobs[i], base, budget); ok {
			out = append(out, lv)
		}
	}
	rank(out)
	var combo *Combination
	if len(out) == 0 || !out[0].Fits {
		var reachable bool
		combo, reachable = combine(tr, knobs, base, budget)
		if !reachable {
			// Not even every knob at its strongest fits: no lever but the
			// budget can matter, and one that frees some bytes would read
			// as progress.
			out = out[:0]
		}
	}
	out = append(out, Lever{Knob: KnobBudget, From: fmtBytes(budget), To: fmtBytes(roundUp(base, MiB)),
		Frees: base - budget, Fits: true})
	return clip(out), combo
}

func clip(l []Lever) []Lever {
	if len(l) > MaxLevers {
		return l[:MaxLevers]
	}
	return l
}

// single finds the mildest rung of k that fits, or its strongest rung,
// trying each in tr's copy of the input.
func single(tr *trials, k *knob, base, budget Bytes) (Lever, bool) {
	if len(k.rungs) == 0 {
		return Lever{}, false
	}
	in, t := tr.in, tr.t
	lv := Lever{Knob: k.name, From: k.from}
	for i, r := range k.rungs {
		if total := tr.total(applied(t, in, r)); total <= budget || i == len(k.rungs)-1 {
			lv.To, lv.Frees, lv.Fits = r.value(), base-total, total <= budget
			break
		}
	}
	if k.exact != nil && !tr.stopped {
		if r, ok := k.exact(in, tr.shape(in), budget); ok {
			lv.Limit = r.value()
			if k.exactTo {
				lv.To, lv.Frees, lv.Fits, lv.Limit = r.value(), base-tr.total(applied(t, in, r)), true, ""
			}
		}
	}
	return lv, lv.Frees > 0
}

// applied copies in to t, applies the rungs rs to the copy and returns t.
// A rung sets its value through a function value, which makes the escape
// analysis move any copy it is given to the heap; so the report makes one
// copy and reuses it for every trial, rather than one per trial (an
// Input is about a kilobyte, and a combination search tries thousands).
func applied(t, in *Input, rs ...rung) *Input {
	*t = *in
	for _, r := range rs {
		r.applyTo(t)
	}
	return t
}

// rank puts fitting levers first, the smallest sufficient change first;
// then the others, the largest first.
func rank(l []Lever) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Fits != l[j].Fits {
			return l[i].Fits
		}
		if l[i].Fits {
			return l[i].Frees < l[j].Frees
		}
		return l[i].Frees > l[j].Frees
	})
}

func fmtBytes(b Bytes) string { return strconv.FormatInt(int64(b), 10) }
