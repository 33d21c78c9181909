package planner

import (
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// layoutText renders a layout plan: the verdict naming the binding rank,
// then one section per distinct rank with that rank's own report, then the
// totals over every GPU and the layout's levers.
func (p *Plan) layoutText() string {
	var b strings.Builder
	l := p.Layout
	printf.Fprintf(&b, "Layout %s: %d %s, %d distinct %s.\n", l.Parallel, l.GPUs, plural(l.GPUs, "GPU", "GPUs"), len(l.Ranks), plural(len(l.Ranks), "rank", "ranks"))
	bp, _ := p.RankPlanOf(l.Binding)
	if p.Fits {
		printf.Fprintf(&b, "Fits on every GPU; the binding rank is %d, with %s to spare.\n", l.Binding, bp.Headroom.mib())
	} else {
		printf.Fprintf(&b, "Cannot fit: rank %d is over its %s budget by %s.\n", l.Binding, bp.Budget.mib(), (bp.Total - bp.Budget).mib())
	}
	for i := range l.Ranks {
		writeRank(&b, &l.Ranks[i], l.Binding)
	}
	printf.Fprintf(&b, "\n== all %d %s: %s of %s (weights %s)\n", l.GPUs, plural(l.GPUs, "GPU", "GPUs"), p.Total.mib(), p.Budget.mib(), p.Weights.mib())
	if c := p.Capacity; c != nil {
		printf.Fprintf(&b, "  capacity on every rank: %d %s of %d tokens; %d tokens at batch %d\n",
			c.MaxSeqsAtMaxLen, plural(int(c.MaxSeqsAtMaxLen), "sequence", "sequences"), p.Input.Limits.MaxSeqLen, c.MaxLenAtBatch, max(p.Input.Limits.MaxBatch, 1))
	}
	p.writeLevers(&b)
	return b.String()
}

func writeRank(b *strings.Builder, rp *RankPlan, binding int) {
	r := rp.Plan.Input.Rank
	mark := ""
	if rp.Ranks[0] == binding {
		mark = " (binding)"
	}
	printf.Fprintf(b, "\n== %s %s: stage %d, layers %d-%d", plural(len(rp.Ranks), "rank", "ranks"), rankList(rp.Ranks),
		r.Stage, r.Layers[0], r.Layers[1]-1)
	if r.Experts > 0 {
		printf.Fprintf(b, ", %d experts", r.Experts)
	}
	printf.Fprintf(b, ", %s%s\n\n", rp.Plan.Input.Calibration.ID, mark)
	q := rp.Plan
	q.Levers, q.Combination = nil, nil // the layout's levers are shown once, below
	b.WriteString(q.Text())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// rankList renders ranks as runs: "0-7", "0-3,8-11".
func rankList(rs []int) string {
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, itoa(rs[i]))
		} else {
			parts = append(parts, itoa(rs[i])+"-"+itoa(rs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
