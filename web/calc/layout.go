package calc

// This file is the calculator's side of a multi-GPU layout: the sizes the
// URL carries (tp, pp, ep, dp), the layout levers applied to a state, and
// the view of each distinct rank, a bar per rank on one scale with the
// binding rank marked.

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// MaxParallel is the largest size of one layout dimension the page takes,
// the planner's own bound.
const MaxParallel = 1024

// layoutKeys are the query keys of the layout, in Encode's order.
var layoutKeys = [...]string{"tp", "pp", "ep", "dp"}

// sizes returns pointers to the state's layout sizes, in layoutKeys order.
func (s *State) sizes() [4]*int { return [4]*int{&s.TP, &s.PP, &s.EP, &s.DP} }

// parseLayout reads the layout sizes: whole numbers from 1 to MaxParallel.
func parseLayout(q values, s *State) error {
	for i, dst := range s.sizes() {
		k := layoutKeys[i]
		if err := parseInt(q, k, dst); err != nil {
			return err
		}
		if n := *dst; q.get(k) != "" && (n < 1 || n > MaxParallel) {
			*dst = 0
			return &FieldError{k, printf.Sprintf("%d is not a parallel size from 1 to %d", n, MaxParallel)}
		}
	}
	return nil
}

// encodeLayout writes the sizes other than 1.
func (s State) encodeLayout(set func(k, v string, skip bool)) {
	for i, n := range s.sizes() {
		set(layoutKeys[i], strconv.Itoa(*n), *n <= 1)
	}
	set("ts", s.TS, s.TS == "")
}

// parallel is the planner's layout of s.
func (s State) parallel() planner.Parallel {
	return planner.Parallel{Tensor: s.TP, Pipeline: s.PP, Expert: s.EP, Data: s.DP}
}

// GPUs reports how many GPUs the state's layout uses.
func (s State) GPUs() int { return max(s.TP, 1) * max(s.PP, 1) * max(s.DP, 1) }

// withLayoutLever applies a layout lever. The fewest-GPUs lever names its
// layout in its To ("4 (tensor_parallel 4 × pipeline_parallel 1)"): one
// replica, no expert parallelism, unless it says otherwise. A tensor split
// for another number of GPUs is dropped: the lever's layout has llama.cpp's
// equal shares, as the planner applied it (layout_levers.go).
func (s State) withLayoutLever(l planner.Lever) (State, bool) {
	t, ok := s.layoutLever(l)
	if t.GPUs() != s.GPUs() {
		t.TS = ""
	}
	return t, ok
}

func (s State) layoutLever(l planner.Lever) (State, bool) {
	n, err := strconv.Atoi(l.To)
	switch l.Knob {
	case planner.KnobTensorParallel:
		s.TP = n
	case planner.KnobPipelineParallel:
		s.PP = n
	case planner.KnobGPUs:
		return s.withLayoutOf(l.To)
	case planner.KnobWeights: // "id" or "id on N GPUs (layout)"
		id, layout, more := strings.Cut(l.To, " on ")
		s.Model = id
		if more {
			return s.withLayoutOf(layout)
		}
		return s, id != ""
	default:
		return s, false
	}
	return s, err == nil
}

func (s State) withLayoutOf(to string) (State, bool) {
	s.TP, s.PP, s.EP, s.DP = 1, 1, 1, 1
	f := strings.FieldsFunc(to, func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == '×' })
	names := [...]string{"tensor_parallel", "pipeline_parallel", "expert_parallel", "data_parallel"}
	for i := 0; i+1 < len(f); i++ {
		for j, name := range names {
			if f[i] != name {
				continue
			}
			n, err := strconv.Atoi(f[i+1])
			if err != nil {
				return s, false
			}
			*s.sizes()[j] = n
		}
	}
	return s, true
}

// LayoutView is a layout plan as the calculator shows it: one bar per
// distinct rank, on one scale, the binding rank marked.
type LayoutView struct {
	Label   string     `json:"label"` // "tensor_parallel 2 × pipeline_parallel 1 · 2 GPUs"
	GPUs    int        `json:"gpus"`
	Binding int        `json:"binding_rank"`
	Ranks   []RankView `json:"ranks"`
}

// RankView is one distinct rank: which ranks hold these bytes, what they
// hold, and their bar against their budget.
type RankView struct {
	Label       string `json:"label"` // "ranks 0-7 · stage 0 · layers 0-30 · 32 experts"
	Binding     bool   `json:"binding"`
	Fits        bool   `json:"fits"`
	TotalMiB    int64  `json:"total_mib"`
	BudgetMiB   int64  `json:"budget_mib"`
	HeadroomMiB int64  `json:"headroom_mib"`
	Bars        []Bar  `json:"bars"`
	BudgetPct   string `json:"budget_pct"`
	Figures     string `json:"figures"` // "28,026 of 32,607 MiB, 4,580 MiB to spare"
	// Weights is what each of these ranks holds of the model's weights:
	// "weights 34,646 MiB (33.8 GiB) on each GPU".
	Weights string `json:"weights"`
}

// layoutView builds the view of a layout plan; bind is its binding rank's plan.
func layoutView(p *planner.Plan) *LayoutView {
	l := p.Layout
	lv := &LayoutView{Label: l.Parallel.String() + " · " + strconv.Itoa(l.GPUs) + " GPUs", GPUs: l.GPUs, Binding: l.Binding}
	var scale planner.Bytes
	for i := range l.Ranks {
		scale = max(scale, l.Ranks[i].Plan.Total, l.Ranks[i].Plan.Budget)
	}
	for i := range l.Ranks {
		rp := &l.Ranks[i]
		q := &rp.Plan
		rv := RankView{Label: rankLabel(rp), Binding: rp.Ranks[0] == l.Binding, Fits: q.Fits, TotalMiB: q.Total.MiB(),
			BudgetMiB: q.Budget.MiB(), HeadroomMiB: q.Headroom.MiB(), BudgetPct: pct(float64(q.Budget) / float64(scale))}
		rv.Figures, rv.Weights = rankFigures(&rv), rankWeights(rp)
		rv.Bars = bars(q.Tiers, scale)
		lv.Ranks = append(lv.Ranks, rv)
	}
	return lv
}

// rankLabel names the ranks of a rank plan and what they hold.
func rankLabel(rp *planner.RankPlan) string {
	word := "rank "
	if len(rp.Ranks) > 1 {
		word = "ranks "
	}
	s := word + runs(rp.Ranks)
	if r := rp.Plan.Input.Rank; r != nil {
		s += printf.Sprintf(" · stage %d · layers %d-%d", r.Stage, r.Layers[0], r.Layers[1]-1)
		if r.Experts > 0 {
			s += " · " + strconv.Itoa(r.Experts) + " experts"
		}
	}
	return s
}

// runs renders ranks as runs of consecutive numbers: "0-7", "0-3,8-11".
func runs(rs []int) string {
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(rs[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(rs[j]))
		}
		i = j + 1
	}
	return b.String()
}

// bindingPlan returns the plan of a layout's binding rank, with the
// capacity every rank holds; a single-GPU plan is its own.
func bindingPlan(p *planner.Plan) *planner.Plan {
	if p.Layout == nil {
		return p
	}
	b, _ := p.RankPlanOf(p.Layout.Binding)
	b.Capacity = p.Capacity
	return &b
}

// layoutVerdict is a layout plan's verdict, in terms of its binding rank.
func layoutVerdict(p, b *planner.Plan) string {
	l := p.Layout
	if p.Fits {
		return printf.Sprintf("Fits on all %d GPUs; the binding rank %d has %s of its %s budget to spare.",
			l.GPUs, l.Binding, sizeOf(b.Headroom), sizeOf(b.Budget))
	}
	if p.Failure != nil && p.Failure.Reason != planner.FailureOverBudget {
		return capitalize(p.Failure.Message) + "."
	}
	return printf.Sprintf("Does not fit: the binding rank %d is over its %s budget by %s.",
		l.Binding, sizeOf(b.Budget), sizeOf(b.Total-b.Budget))
}

// rankFigures is a rank's total against its budget, in words.
func rankFigures(r *RankView) string {
	spare := Group(r.HeadroomMiB) + " MiB to spare"
	if !r.Fits {
		spare = "over by " + Group(-r.HeadroomMiB) + " MiB"
	}
	return Group(r.TotalMiB) + " of " + Group(r.BudgetMiB) + " MiB, " + spare
}

// rankWeights says what each GPU of a rank plan holds of the weights.
func rankWeights(rp *planner.RankPlan) string {
	var w planner.Bytes
	for _, it := range rp.Plan.Items {
		if it.Key == "weights" {
			w += it.Bytes
		}
	}
	each := " on each of its GPUs"
	if len(rp.Ranks) == 1 {
		each = " on its GPU"
	}
	return "weights " + sizeOf(w) + each
}

// layoutLeverLabel names a lever as a link; a layout lever says how many
// GPUs the layout it leads to (t) uses.
func layoutLeverLabel(l planner.Lever, t State) string {
	gpus := strconv.Itoa(t.GPUs()) + " " + plural(int64(t.GPUs()), "GPU", "GPUs")
	switch l.Knob {
	case planner.KnobGPUs:
		return gpus + ": " + t.parallel().String()
	case planner.KnobTensorParallel, planner.KnobPipelineParallel:
		return knobLabels[l.Knob] + " " + l.From + " → " + l.To + ": " + gpus
	case planner.KnobWeights:
		label := "weights " + l.From + " → " + t.Model
		if strings.Contains(l.To, " on ") {
			label += ", on " + gpus + ": " + t.parallel().String()
		}
		return label
	}
	return leverLabel(l)
}
