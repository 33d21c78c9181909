package planner

import (
	"fmt"
	"strings"
)

// Text renders p as the seed's operator-facing report (A4.3): the line items
// in MiB, the total against the budget, the capacity, and when the plan does
// not fit, the levers and the smallest combination.
func (p *Plan) Text() string {
	var b strings.Builder
	if p.Fits {
		fmt.Fprintf(&b, "Fits in the %d MiB budget with %d MiB to spare.\n\n", p.Budget.MiB(), p.Headroom.MiB())
	} else {
		fmt.Fprintf(&b, "Cannot fit this configuration in the %d MiB budget.\n\n", p.Budget.MiB())
		if p.Failure != nil && p.Failure.Reason == FailureAdmissionFloor {
			fmt.Fprintf(&b, "  %s\n\n", p.Failure.Message)
		}
	}
	p.writeItems(&b)
	p.writeCapacity(&b)
	p.writeLevers(&b)
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "\n  warning: %s\n", w)
	}
	return b.String()
}

func (p *Plan) writeItems(b *strings.Builder) {
	const w = 42
	fmt.Fprintf(b, "  %-*s %8s  %-6s %s\n", w, "requested", "MiB", "tier", "source")
	for _, it := range p.Items {
		fmt.Fprintf(b, "    %-*s %8d  %-6s %s\n", w-2, it.Name, it.Bytes.MiB(), it.Tier, it.Source)
	}
	fmt.Fprintf(b, "    %-*s %8s\n", w-2, "", "-----")
	fmt.Fprintf(b, "    %-*s %8d", w-2, "total", p.Total.MiB())
	if p.Fits {
		fmt.Fprintf(b, "   of %d MiB\n", p.Budget.MiB())
	} else {
		fmt.Fprintf(b, "   over by %d MiB\n", (p.Total - p.Budget).MiB())
	}
}

func (p *Plan) writeCapacity(b *strings.Builder) {
	fmt.Fprintf(b, "\n  KV: %d blocks of %d tokens, %s/token, %s %s\n", p.KV.Blocks, p.KV.BlockTokens,
		p.KV.BytesPerToken, p.KV.Dtype, p.KV.Bytes)
	if s := p.KV.SWA; s != nil {
		fmt.Fprintf(b, "  SWA KV: %d blocks (%d per sequence, window %d), %s\n", s.Blocks, s.BlocksPerSeq, s.Window, s.Bytes)
	}
	if c := p.Capacity; c != nil {
		fmt.Fprintf(b, "  capacity: %d sequences of %d tokens; %d tokens at batch %d\n",
			c.MaxSeqsAtMaxLen, p.Input.Limits.MaxSeqLen, c.MaxLenAtBatch, max(p.Input.Limits.MaxBatch, 1))
	}
}

func (p *Plan) writeLevers(b *strings.Builder) {
	if len(p.Levers) > 0 {
		fmt.Fprintf(b, "\n  the %d best levers\n", len(p.Levers))
	}
	for _, l := range p.Levers {
		fmt.Fprintf(b, "    %-40s frees %6d MiB%s\n", l.Knob.display(l.From, l.To), l.Frees.MiB(), fitNote(l))
	}
	if c := p.Combination; c != nil {
		b.WriteString("\n  no single lever fits; the smallest combination that does\n")
		for _, l := range c.Changes {
			fmt.Fprintf(b, "    %-40s frees %6d MiB\n", l.Knob.display(l.From, l.To), l.Frees.MiB())
		}
	}
}

func fitNote(l Lever) string {
	s := ""
	if !l.Fits {
		s = "  (not enough alone)"
	}
	if l.Limit != "" && l.Limit != l.To {
		s += fmt.Sprintf("  (exact limit %s)", l.Limit)
	}
	return s
}

// display renders a change of k as the seed's report does.
func (k Knob) display(from, to string) string {
	if k == KnobBudget {
		return fmt.Sprintf("budget %s -> %s MiB", mibString(from), mibString(to))
	}
	return fmt.Sprintf("%s %s -> %s", k, from, to)
}

func mibString(bytes string) string {
	var n int64
	fmt.Sscan(bytes, &n)
	return fmt.Sprint(Bytes(n).MiB())
}
