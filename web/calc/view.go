package calc

import (
	"cmp"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// View is a plan as the calculator shows it: every figure already
// formatted, so the server's templates and the browser's painter print the
// same strings. It crosses the WebAssembly boundary as JSON.
type View struct {
	Query string `json:"query"` // the state, encoded
	State State  `json:"state"`
	Error string `json:"error,omitempty"` // the input cannot be planned; nothing else is set

	// Subject names what is planned: the model, the GPU, the batch, the
	// length and the KV dtype; Title is the page's title, the subject and
	// the verdict.
	Subject string `json:"subject,omitempty"`
	Title   string `json:"title,omitempty"`

	Fits    bool   `json:"fits"`
	Verdict string `json:"verdict"`
	// Estimate says, beside the verdict, that the GPU's figures are
	// estimated and how far off they can be, and whether the verdict rests
	// on less headroom than that (Estimate); EstimateURL is how the entry
	// was estimated. Both are empty for a measured or community GPU.
	Estimate    string `json:"estimate,omitempty"`
	EstimateURL string `json:"estimate_url,omitempty"`
	BudgetMiB   int64  `json:"budget_mib"`
	TotalMiB    int64  `json:"total_mib"`
	HeadroomMiB int64  `json:"headroom_mib"`
	// TotalGiB, BudgetGiB and HeadroomGiB are those figures in GiB, in
	// parentheses, once they get long ("(140.4 GiB)"); empty below 10 GiB.
	TotalGiB    string `json:"total_gib,omitempty"`
	BudgetGiB   string `json:"budget_gib,omitempty"`
	HeadroomGiB string `json:"headroom_gib,omitempty"`
	// BudgetNote says how the budget field was read: the device total when
	// it is empty, and what a unit meant ("24 GB is decimal: …").
	BudgetNote string `json:"budget_note"`
	// BarLabel is the stacked bar in words, for screen readers: every
	// tier's figure and the total against the budget.
	BarLabel  string `json:"bar_label"`
	Bars      []Bar  `json:"bars"`
	BudgetPct string `json:"budget_pct"` // where the budget falls on the bar
	// Items are the line items of one GPU: for a layout, its binding
	// rank's, as ItemsCaption says; KV is that GPU's KV geometry.
	Items        []Row    `json:"items"`
	ItemsCaption string   `json:"items_caption"`
	KV           string   `json:"kv"`
	MaxSeqs      int      `json:"max_seqs"` // concurrent sequences at this length
	MaxLen       int      `json:"max_len"`  // longest sequence at this batch
	Levers       []Action `json:"levers,omitempty"`
	Combination  *Action  `json:"combination,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	Chart        Chart    `json:"chart"`
	Sliders      Sliders  `json:"sliders"`
	// BatchHint says what a batch of 0, or an empty batch field, plans.
	BatchHint string `json:"batch_hint"`
	// Fields says which engine-dependent fields the page shows.
	Fields Fields `json:"fields"`

	// Engine names the rules the plan follows, with the version they were
	// read from; Answer is the plan in that engine's terms and Launch the
	// command line that pins it (empty for vramplan's own engine).
	Engine string `json:"engine"`
	Answer string `json:"answer,omitempty"`
	Launch string `json:"launch,omitempty"`
	// Host is what the engine keeps in host memory ("Host memory: …"),
	// empty when it lists none.
	Host string `json:"host,omitempty"`
	// Notes are the engine's notes on the plan, as vramplan plan prints
	// them ("as asked, -ngl 81 does not fit: …", a pool that grows past
	// what is charged); for a layout, the binding rank's.
	Notes []string `json:"notes,omitempty"`
	// KVRange and WeightsRange are the ranges that real start-ups like
	// this one support for the plan's KV tokens and weights, as vramplan
	// plan prints them (planner.Spread); empty for an engine without them.
	KVRange      string `json:"kv_range,omitempty"`
	WeightsRange string `json:"weights_range,omitempty"`

	// Layout is the plan per rank of a layout of more than one GPU; the
	// figures above are then sums over its GPUs, and Across says so ("all
	// 4 GPUs"), beside the Total, Budget and Headroom labels.
	Layout *LayoutView `json:"layout,omitempty"`
	Across string      `json:"across,omitempty"`
}

// Bar is one tier's segment of the stacked bar, as a share of the scale.
type Bar struct {
	Tier  planner.Tier `json:"tier"`
	Label string       `json:"label"`
	MiB   int64        `json:"mib"`
	Size  string       `json:"size"` // MiB as a person reads it: "8,192 MiB", "40,960 MiB (40 GiB)"
	Pct   string       `json:"pct"`  // CSS width, e.g. "12.5%"
}

// Row is one line item of the plan.
type Row struct {
	Key    string         `json:"key"`
	Name   string         `json:"name"`
	Tier   planner.Tier   `json:"tier"`
	MiB    int64          `json:"mib"`
	Source planner.Source `json:"source"`
	// Badge is the source as the table's tag reads it: "not measured" for
	// an unmeasured charge, "estimated" for a calibrated one on a GPU whose
	// calibration is estimated.
	Badge  string `json:"badge"`
	Detail string `json:"detail,omitempty"`
}

// Action is a lever as a link: what it changes and the state it leads to.
type Action struct {
	Label string `json:"label"`
	Query string `json:"query"`
	Href  string `json:"href"` // "?" and Query
	Fits  bool   `json:"fits"`
}

// tierLabels names the tiers for the bar's legend.
var tierLabels = map[planner.Tier]string{
	planner.TierDriver: "driver", planner.TierEnginePersistent: "T2 engine",
	planner.TierModelResident: "T1 model", planner.TierPooled: "T3 pools", planner.TierScratch: "T4 scratch",
}

// bars are the bar's segments and the legend's entries for tiers, each
// sized against scale. A tier that holds nothing is left out: the pool
// engines have no engine-persistent arena (vLLM's and SGLang's T2 is
// empty), and a legend entry "T2 engine 0 MiB" would name a charge that
// their plans do not make.
func bars(tiers []planner.TierTotal, scale planner.Bytes) []Bar {
	out := make([]Bar, 0, len(tiers))
	for _, t := range tiers {
		if t.Bytes != 0 {
			out = append(out, Bar{Tier: t.Tier, Label: tierLabels[t.Tier], MiB: t.Bytes.MiB(), Size: sizeOf(t.Bytes), Pct: pct(float64(t.Bytes) / float64(scale))})
		}
	}
	return out
}

// Calculate plans s against the model and calibration and builds its view.
// An input the planner rejects yields a view with only Error set.
func Calculate(s State, m planner.Model, c planner.Calibration) View {
	var k Calculator
	return k.Calculate(s, &m, &c)
}

// A Calculator is Calculate with a memory: it keeps the last frontier,
// which depends on neither the batch nor the length, so moving those two
// sliders re-plans without re-solving it. The zero value is ready to use;
// a Calculator is not safe for concurrent use.
type Calculator struct {
	key      State // the last state, batch and length cleared
	model    *planner.Model
	cal      *planner.Calibration
	frontier []planner.Point
}

// Calculate is the package's Calculate. The model and calibration must not
// change while the Calculator holds them: pass new pointers for new values.
func (k *Calculator) Calculate(s State, m *planner.Model, c *planner.Calibration) View {
	in := planner.Input{Model: *m, Calibration: *c}
	s.Apply(&in)
	v := View{Query: s.Encode(), State: s, Fields: s.fields()}
	if err := s.checkSplit(); err != nil {
		return v.unplanned(err)
	}
	p, err := planner.Report(in)
	var f *planner.Failure
	if err != nil && !errors.As(err, &f) {
		return v.unplanned(err)
	}
	b := bindingPlan(&p)
	v.fill(&p, b)
	if p.Layout != nil {
		v.Layout, v.Verdict = layoutView(&p), layoutVerdict(&p, b)
	}
	v.Engine, v.Answer, v.Launch = engineOf(b)
	v.Host = hostMemory(&p, b)
	if b.Engine != nil {
		v.Notes = b.Engine.Notes
		v.KVRange, v.WeightsRange = spreadLines(b.Engine.Spreads)
	}
	if s.Engine != "" && !offers(s.Engine, s.KV) {
		v.Warnings = append(v.Warnings, printf.Sprintf("%s offers no KV dtype %s (it offers %v); planned with %s",
			s.Engine, s.KV, s.Engine.KVDtypes(), p.KV.Dtype))
	}
	if w := droppedFeatures(s); w != "" {
		v.Warnings = append(v.Warnings, w)
	}
	v.Estimate, v.EstimateURL = Estimate(&p), estimateURL(b)
	v.Subject = subject(s, m, c, b)
	v.Title = "vramplan · " + v.Subject + " · " + v.Verdict
	// The platform decides the driver's charges (WSL2's are ten times
	// Linux's on the RTX 5090), so the answer names it.
	if pl := c.PlatformName(); pl != "" {
		v.Verdict = "Under " + pl + ": " + v.Verdict
	}
	v.Levers, v.Combination = actions(s, &p)
	if a, ok := offloadAction(s, b); ok {
		a.Href = "?" + a.Query
		v.Levers = append([]Action{a}, v.Levers...)
	}
	at := s
	at.Batch = plannedBatch(s, b)
	v.Chart = chart(k.frontierOf(in, s, m, c), at, &p)
	v.Sliders = sliders(s, b)
	v.BatchHint = batchHint(s, b)
	return v
}

// unplanned is the view of a state that cannot be planned: the error in
// words, and the title that says so.
func (v View) unplanned(err error) View {
	v.Error = Words(err)
	v.Title = NotPlannedTitle(v.Error)
	return v
}

// NotPlannedTitle is the title of a page whose state cannot be planned.
func NotPlannedTitle(msg string) string { return "vramplan · not planned: " + msg }

func (k *Calculator) frontierOf(in planner.Input, s State, m *planner.Model, c *planner.Calibration) []planner.Point {
	key := s
	key.Batch, key.Len = 0, 0
	if k.frontier == nil || key != k.key || m != k.model || c != k.cal {
		k.key, k.model, k.cal, k.frontier = key, m, c, Frontier(in)
	}
	return k.frontier
}

// fill sets the figures of plan p, whose binding rank's plan is b (p
// itself for one GPU): the totals and the bar are p's, over every GPU; the
// line items and the KV geometry are b's, one GPU's.
func (v *View) fill(p, b *planner.Plan) {
	v.Fits, v.BudgetMiB, v.TotalMiB, v.HeadroomMiB = p.Fits, p.Budget.MiB(), p.Total.MiB(), p.Headroom.MiB()
	v.TotalGiB, v.BudgetGiB, v.HeadroomGiB = GiB(v.TotalMiB), GiB(v.BudgetMiB), GiB(v.HeadroomMiB)
	if p.Layout != nil {
		v.Across = printf.Sprintf("all %d GPUs", p.Layout.GPUs)
	}
	v.BudgetNote = budgetNote(p)
	v.Verdict = verdict(p)
	scale := max(p.Total, p.Budget)
	v.Bars = bars(p.Tiers, scale)
	v.BudgetPct = pct(float64(p.Budget) / float64(scale))
	v.BarLabel = barLabel(v)
	v.Items = rows(b)
	v.ItemsCaption = "Line items"
	if p.Layout != nil {
		v.ItemsCaption = "Line items of one GPU, the binding rank " + strconv.Itoa(p.Layout.Binding)
	}
	v.KV = printf.Sprintf("%s %s of %s, %s/token, %s, %s", Group(b.KV.Blocks), plural(b.KV.Blocks, "block", "blocks"),
		tokens(b.KV.BlockTokens), b.KV.BytesPerToken, b.KV.Dtype, b.KV.Bytes)
	if p.Capacity != nil {
		v.MaxSeqs, v.MaxLen = p.Capacity.MaxSeqsAtMaxLen, p.Capacity.MaxLenAtBatch
	}
	v.Warnings = p.Warnings
}

// barLabel says what the stacked bar shows: "memory by tier: driver
// 1,692 MiB, …; total 30,312 of 32,607 MiB" ("memory by tier, summed over
// all 4 GPUs: …" for a layout).
func barLabel(v *View) string {
	var b strings.Builder
	b.WriteString("memory by tier")
	if v.Across != "" {
		b.WriteString(", summed over " + v.Across)
	}
	b.WriteString(": ")
	for i, t := range v.Bars {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Label + " " + t.Size)
	}
	b.WriteString("; total " + Group(v.TotalMiB) + " of the " + Size(v.BudgetMiB) + " budget")
	return b.String()
}

// budgetNote says how the budget was read, beside the budget field. The
// state holds bytes, so a decimal unit shows as a budget that is not a whole
// number of MiB; the note names it in the unit it was most likely given in.
func budgetNote(p *planner.Plan) string {
	if l := p.Layout; l != nil {
		return layoutBudgetNote(p, l)
	}
	b := p.Input.Budget
	switch {
	case b == 0:
		return "Empty: the whole of this GPU, " + sizeOf(p.Budget) + "."
	case b%planner.MiB == 0 && b < planner.GiB:
		return "Read as " + sizeOf(b) + ": a bare number is MiB; write " + Group(b.MiB()) + "GiB for GiB."
	case b%planner.MiB == 0:
		return "Read as " + sizeOf(b) + "."
	}
	return "Read as " + decimal(b) + ", in decimal units (1 GB = 10⁹ bytes): " + sizeOf(b) + ". Write GiB for binary units (1024³ bytes)."
}

// layoutBudgetNote is budgetNote for a layout, whose budget is each GPU's
// and whose Budget figure is their sum.
func layoutBudgetNote(p *planner.Plan, l *planner.Layout) string {
	all := " " + sizeOf(p.Budget) + " on all " + strconv.Itoa(l.GPUs) + " GPUs."
	if p.Input.Budget != 0 {
		q := *p
		q.Layout = nil
		return budgetNote(&q) + " It is each GPU's budget:" + all
	}
	each := l.Ranks[0].Plan.Budget
	for i := range l.Ranks {
		if l.Ranks[i].Plan.Budget != each {
			return "Empty: the whole of each GPU," + all
		}
	}
	return "Empty: the whole of each GPU, " + sizeOf(each) + ";" + all
}

// decimal names a size in the largest decimal unit that divides it.
func decimal(b planner.Bytes) string {
	if n, unit := decimalUnit(b); unit != "" {
		return Group(n) + " " + unit
	}
	return Group(int64(b)) + " bytes"
}

// decimalUnit returns b in the largest decimal unit that divides it, or ""
// when none does.
func decimalUnit(b planner.Bytes) (int64, string) {
	for _, u := range []struct {
		name string
		size int64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if int64(b)%u.size == 0 {
			return int64(b) / u.size, u.name
		}
	}
	return int64(b), ""
}

// subject names the model, the GPU and the limits of a plan in words; p
// is the plan of one GPU (a layout's binding rank).
func subject(s State, m *planner.Model, c *planner.Calibration, p *planner.Plan) string {
	kv := p.KV.Dtype
	batch := "batch " + groupInt(s.Batch)
	switch n := plannedBatch(s, p); {
	case s.Batch != 0:
	case engineDefault(p) > 0:
		batch = "batch 0: the engine's default, " + groupInt(n)
	case n > 0:
		batch = "batch 0: as many as fit, " + groupInt(n)
	default:
		batch = "batch 0: as many as fit, none"
	}
	gpu := cmp.Or(c.GPU, c.ID)
	if pl := c.PlatformName(); pl != "" {
		gpu += " under " + pl
	}
	if s.GPUs() > 1 || s.EP > 1 {
		gpu = strconv.Itoa(s.GPUs()) + " × " + gpu + " (" + s.parallel().String() + ")"
	}
	return cmp.Or(m.Name, m.ID) + " on " + gpu + " · " + batch + " · " +
		groupInt(s.Len) + " tokens · KV " + string(kv)
}

func verdict(p *planner.Plan) string {
	if dev := p.Input.Calibration.DeviceTotal; p.Fits && dev > 0 && p.Budget > dev {
		return printf.Sprintf("Fits the %s budget, which is more than this GPU holds: %s.", sizeOf(p.Budget), sizeOf(dev))
	}
	if p.Fits {
		return printf.Sprintf("Fits in the %s budget with %s to spare.", sizeOf(p.Budget), sizeOf(p.Headroom))
	}
	if p.Failure != nil && p.Failure.Reason != planner.FailureOverBudget {
		return capitalize(p.Failure.Message) + "."
	}
	return printf.Sprintf("Does not fit the %s budget: over by %s.", sizeOf(p.Budget), sizeOf(p.Total-p.Budget))
}

func capitalize(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// pct formats a fraction, clamped to [0, 1], as a CSS percentage.
func pct(f float64) string {
	if math.IsNaN(f) || f < 0 {
		f = 0
	}
	return strconv.FormatFloat(min(f, 1)*100, 'f', 2, 64) + "%"
}

func actions(s State, p *planner.Plan) ([]Action, *Action) {
	var out []Action
	for _, l := range p.Levers {
		if t, ok := s.WithLever(l); ok {
			out = append(out, Action{Label: layoutLeverLabel(l, t), Query: t.Encode(), Href: "?" + t.Encode(), Fits: l.Fits})
		}
	}
	if p.Combination == nil {
		return out, nil
	}
	combo, t := &Action{Fits: true}, s
	for i, l := range p.Combination.Changes {
		if i > 0 {
			combo.Label += " and "
		}
		l.Fits, l.Limit = true, "" // a part of the combination: no single-lever notes
		combo.Label += leverLabel(l)
		t, _ = t.WithLever(l)
	}
	combo.Query = t.Encode()
	combo.Href = "?" + combo.Query
	return out, combo
}

// knobLabels names the knobs as the sliders do.
var knobLabels = map[planner.Knob]string{
	planner.KnobMaxSeqLen: "max length", planner.KnobMaxBatch: "max batch", planner.KnobKVDtype: "KV dtype",
	planner.KnobWeightCache: "weight cache", planner.KnobVision: "vision tower", planner.KnobSpecDecodeK: "speculative k",
	planner.KnobCUDAGraphs: "CUDA graphs", planner.KnobBlockTokens: "tokens per block",
	planner.KnobPrefillTokens: "prefill chunk", planner.KnobBudget: "budget",
	planner.KnobTensorParallel: "tensor parallel", planner.KnobPipelineParallel: "pipeline stages", planner.KnobGPUs: "GPUs",
}

func leverLabel(l planner.Lever) string {
	from, to := l.From, l.To
	if l.Knob == planner.KnobBudget {
		return printf.Sprintf("budget %s → %s", mibSize(from), mibSize(to))
	}
	label := printf.Sprintf("%s %s → %s (frees %s)", knobLabels[l.Knob], groupDigits(from), groupDigits(to), sizeOf(l.Frees))
	if l.Limit != "" && l.Limit != l.To {
		label += ", exact limit " + groupDigits(l.Limit)
	}
	if !l.Fits {
		label += ", not enough alone"
	}
	return label
}

// mibSize formats a lever's byte count, given as a decimal string, in MiB.
func mibSize(bytes string) string {
	n, _ := strconv.ParseInt(bytes, 10, 64)
	return sizeOf(planner.Bytes(n))
}

// groupDigits groups a lever's value when it is a whole number (a length,
// a batch); a dtype or a cache name is kept as it is.
func groupDigits(v string) string {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return Group(n)
	}
	return v
}

// engineOf states the plan's engine: its label, its answer, its launch command.
func engineOf(p *planner.Plan) (label, answer, launch string) {
	e := p.Engine
	if e == nil {
		return "planned for vramplan's engine (as gpuagent serves the plan)", "", ""
	}
	label = "planned as " + planner.PlannedAs(e)
	switch {
	case e.LlamaCpp != nil && e.LlamaCpp.FullOffload:
		a := e.LlamaCpp
		answer = printf.Sprintf("-c %d -np %d fits with every layer on the %s (-ngl %d)", a.CtxSize, a.Parallel, gpuNoun(p), a.Layers)
	case e.LlamaCpp != nil:
		a := e.LlamaCpp
		answer = printf.Sprintf("-c %d -np %d: %d of %d layers fit on the %s", a.CtxSize, a.Parallel, a.LayersThatFit, a.Layers, gpuNoun(p))
	case e.Pool != nil:
		a := e.Pool
		answer = printf.Sprintf("KV pool %s: %s in %s %s; %.2f× concurrency at %s; the longest request %s",
			sizeOf(a.PoolBytes), tokens(int(a.Tokens)), Group(a.Blocks), plural(a.Blocks, "block", "blocks"), a.MaxConcurrency,
			tokens(p.Input.Limits.MaxSeqLen), tokens(a.LongestRequest))
	}
	return label, answer, e.Launch
}

// spreadLines says the KV tokens' and the weights' spreads of ss.
func spreadLines(ss []planner.Spread) (kv, weights string) {
	for i := range ss {
		switch ss[i].Figure {
		case planner.FigureKVTokens.String():
			kv = ss[i].Line()
		case planner.FigureWeights.String():
			weights = ss[i].Line()
		}
	}
	return kv, weights
}

// gpuNoun is "GPU", or "GPUs" for a rank of a layout of several.
func gpuNoun(p *planner.Plan) string {
	if r := p.Input.Rank; r != nil && r.Layout.GPUs() > 1 {
		return "GPUs"
	}
	return "GPU"
}

// droppedFeatures says which of the seed's features s asks for that a plan
// under an engine leaves out (State.Apply: the engines' rules charge what
// they allocate, and have none of them), or "" when none is.
func droppedFeatures(s State) string {
	if s.Engine == "" || s.Engine == planner.EngineSeed {
		return ""
	}
	var names []string
	for _, f := range []struct {
		key string
		on  bool
	}{{"cache", s.Cache != "" && s.Cache != planner.WeightCacheNone}, {"spec", s.Spec > 0}, {"graphs", s.Graphs}} {
		if f.on {
			names = append(names, Label(f.key))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return printf.Sprintf("%s has no %s of vramplan's own engine: planned without %s", s.Engine.Profile().Label, strings.Join(names, ", "), plural(int64(len(names)), "it", "them"))
}
