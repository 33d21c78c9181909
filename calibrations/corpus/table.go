package corpus

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Tolerance is the residual a figure is held to: the 3 %.
const Tolerance = 0.03

// Table writes the residual table of rows as Markdown: the summary by
// version band and model kind, the failed starts the plan did not refuse,
// the entries that could not be planned, then every entry.
func Table(rows []Row) string {
	var b strings.Builder
	writeSpread(&b, rows)
	writeTotals(&b, rows)
	writeSummary(&b, rows, "kind", kindOf)
	writeSummary(&b, rows, "GPUs", parallelOf)
	writeUnrefused(&b, rows)
	writeUnplanned(&b, rows)
	writeRows(&b, rows)
	return b.String()
}

// complete reports whether r is a started run the plan could plan whose
// log prints its KV tokens: the runs the 3 % goal counts.
func (r *Row) complete() bool {
	return r.Err == nil && r.Entry.Outcome.Started() && r.KVTokens.Known
}

func writeTotals(b *strings.Builder, rows []Row) {
	var n, kv, w, wn, failed, refused, unplanned int
	for i := range rows {
		r := &rows[i]
		switch {
		case r.Err != nil:
			unplanned++
		case !r.Entry.Outcome.Started():
			failed++
			refused += boolInt(r.Refused)
		}
		if r.complete() {
			n++
			kv += boolInt(r.KVTokens.Within(Tolerance))
		}
		if r.Err == nil && r.Entry.Outcome.Started() && r.Weights.Known {
			wn++
			w += boolInt(r.Weights.Within(Tolerance))
		}
	}
	fmt.Fprintf(b, "%d entries: %d planned, %d not plannable (below). ", len(rows), len(rows)-unplanned, unplanned)
	fmt.Fprintf(b, "KV tokens within 3 %%: %d of %d complete runs (%s). ", kv, n, percent(kv, n))
	fmt.Fprintf(b, "Weights within 3 %%: %d of %d started runs that print them (%s). ", w, wn, percent(w, wn))
	fmt.Fprintf(b, "Failed starts refused by the plan: %d of %d planned.\n\n", refused, failed)
}

// writeSpread counts the runs by engine and band, parallelism, GPU model,
// checkpoint and kind.
func writeSpread(b *strings.Builder, rows []Row) {
	runs, bands := map[string]int{}, map[string]map[string]bool{}
	gpus, models, kinds := map[string]bool{}, map[string]bool{}, map[string]bool{}
	parallel := 0
	for i := range rows {
		e := rows[i].Entry
		runs[e.Engine]++
		if bands[e.Engine] == nil {
			bands[e.Engine] = map[string]bool{}
		}
		bands[e.Engine][rows[i].Band.Name] = true
		gpus[e.GPU.Name] = e.GPU.Name != ""
		models[e.Model.HFID] = true
		for _, k := range strings.Split(e.Model.Family, "+") {
			kinds[k] = true
		}
		if e.GPU.Count > 1 {
			parallel++
		}
	}
	fmt.Fprintf(b, "Spread: vLLM %d runs over %d bands, SGLang %d over %d; %d on more than one GPU; %d GPU names; %d checkpoints; kinds %s.\n\n",
		runs[EngineVLLM], len(bands[EngineVLLM]), runs[EngineSGLang], len(bands[EngineSGLang]), parallel, countTrue(gpus), len(models),
		strings.Join(sortedKeys(kinds), ", "))
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, ok := range m {
		n += boolInt(ok)
	}
	return n
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func percent(k, n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(k)/float64(n))
}

func boolInt(ok bool) int {
	if ok {
		return 1
	}
	return 0
}

// group is the rows of one band and one class of a second axis (the
// model kind, the parallelism).
type group struct {
	band, class string
	rows        []*Row
}

func groups(rows []Row, classOf func(r *Row) string) []group {
	var gs []group
	for _, band := range Bands {
		for i := range rows {
			r := &rows[i]
			if r.Band.Name != band.Name {
				continue
			}
			c := classOf(r)
			j := slices.IndexFunc(gs, func(g group) bool { return g.band == band.Name && g.class == c })
			if j < 0 {
				gs, j = append(gs, group{band: band.Name, class: c}), len(gs)
			}
			gs[j].rows = append(gs[j].rows, r)
		}
	}
	return gs
}

func kindOf(r *Row) string { return r.Entry.Model.Family }

func parallelOf(r *Row) string {
	if r.Entry.GPU.Count > 1 {
		return "more than one GPU"
	}
	return "one GPU"
}

// tally is a group's counts and residuals.
type tally struct {
	started, kvN, kvOK, wN, wOK, failed, refused int
	kvRes, wRes                                  []float64
}

func tallyOf(rs []*Row) tally {
	var t tally
	for _, r := range rs {
		if r.Entry.Outcome.Started() {
			t.started++
		} else if r.Err == nil {
			t.failed++
			t.refused += boolInt(r.Refused)
		}
		if r.complete() {
			t.kvN++
			t.kvOK += boolInt(r.KVTokens.Within(Tolerance))
			t.kvRes = append(t.kvRes, r.KVTokens.Residual())
		}
		if r.Err == nil && r.Entry.Outcome.Started() && r.Weights.Known {
			t.wN++
			t.wOK += boolInt(r.Weights.Within(Tolerance))
			t.wRes = append(t.wRes, r.Weights.Residual())
		}
	}
	return t
}

// writeSummary writes the groups of band and classOf's classes, head
// naming the class column.
func writeSummary(b *strings.Builder, rows []Row, head string, classOf func(r *Row) string) {
	b.WriteString("| band | " + head + " | runs | started | KV tokens within 3 % | KV residual: median (range) | " +
		"weights within 3 % | weights residual: median (range) | failed starts refused |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range groups(rows, classOf) {
		t := tallyOf(g.rows)
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", g.band, g.class, len(g.rows), t.started,
			ratio(t.kvOK, t.kvN), spread(t.kvRes), ratio(t.wOK, t.wN), spread(t.wRes), ratio(t.refused, t.failed))
	}
	b.WriteString("\n")
}

// spread writes residuals as their median and range.
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	if len(xs) == 1 {
		return signed(xs[0])
	}
	return fmt.Sprintf("%s (%s … %s)", signed(median(xs)), signed(slices.Min(xs)), signed(slices.Max(xs)))
}

func ratio(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d / %d", k, n)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// signed writes a residual as a signed percentage, "–" when it is unknown.
func signed(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", 100*x)
}

func writeUnrefused(b *strings.Builder, rows []Row) {
	outcome := func(r *Row) string { return string(r.Entry.Outcome) }
	writeList(b, rows, "Failed starts the plan does not refuse:", func(r *Row) bool {
		return r.Err == nil && !r.Entry.Outcome.Started() && !r.Refused
	}, outcome)
	writeList(b, rows, "Runs that started and the plan refuses:", func(r *Row) bool {
		return r.Err == nil && r.Entry.Outcome.Started() && r.Refused
	}, outcome)
}

func writeUnplanned(b *strings.Builder, rows []Row) {
	writeList(b, rows, "Entries that cannot be planned, and why:", func(r *Row) bool { return r.Err != nil },
		func(r *Row) string { return cut(strings.TrimPrefix(r.Err.Error(), Unplannable), 160) })
}

// writeList lists the rows that hold, each with what why says of it.
func writeList(b *strings.Builder, rows []Row, title string, holds func(r *Row) bool, why func(r *Row) string) {
	b.WriteString(title)
	n := 0
	for i := range rows {
		if r := &rows[i]; holds(r) {
			fmt.Fprintf(b, "\n- `%s`: %s", r.Entry.ID, why(r))
			n++
		}
	}
	if n == 0 {
		b.WriteString(" none.")
	}
	b.WriteString("\n\n")
}

func writeRows(b *strings.Builder, rows []Row) {
	b.WriteString("| entry | band | kind | GPU | TP × PP | outcome | KV tokens: log / plan | weights GiB per rank: log / plan | KV GiB: log / plan " +
		"| activation GiB | non-torch GiB | CUDA graphs GiB | plan refuses |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i := range rows {
		r := &rows[i]
		e := r.Entry
		if r.Err != nil {
			fmt.Fprintf(b, "| %s | %s | %s | %s | – | %s | not plannable | | | | | | |\n", e.ID, r.Band.Name, e.Model.Family, gpuName(e), e.Outcome)
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d × %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", e.ID, r.Band.Name, e.Model.Family, gpuName(e),
			r.TP, r.PP, e.Outcome, pair(r.KVTokens, "%.0f"), pair(r.Weights, "%.2f"), pair(r.KVGiB, "%.2f"),
			short(r.Activation), short(r.NonTorch), short(r.Graphs), yesNo(r.Refused))
	}
}

func gpuName(e *Entry) string {
	name := e.GPU.Name
	if name == "" {
		name = "(not named)"
	}
	return fmt.Sprintf("%s, %.2f GiB", name, e.GPU.TotalGiB)
}

func pair(p Pair, format string) string {
	if !p.Known {
		return "– / " + fmt.Sprintf(format, p.Plan)
	}
	return fmt.Sprintf(format+" / "+format+" (%s)", p.Real, p.Plan, signed(p.Residual()))
}

// short writes a small charge as log / plan without its residual, "–"
// when neither has it.
func short(p Pair) string {
	switch {
	case p.Known:
		return fmt.Sprintf("%.2f / %.2f", p.Real, p.Plan)
	case p.Plan != 0:
		return fmt.Sprintf("– / %.2f", p.Plan)
	}
	return "–"
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
