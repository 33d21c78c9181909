package planner

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// Text renders p as the seed's operator-facing report (A4.3): the line items
// in MiB, the total against the budget, the capacity, and when the plan does
// not fit, the levers and the smallest combination.
func (p *Plan) Text() string {
	if p.Layout != nil {
		return p.layoutText()
	}
	var b strings.Builder
	if p.Fits && p.PoolTakesRest() {
		printf.Fprintf(&b, "Fits: %s takes %s (%.3g of the device) and gives its KV pool the %s left.\n\n",
			p.Engine.Engine, p.Budget.mib(), p.Engine.Pool.Fraction, p.Engine.Pool.PoolBytes.mib())
	} else if p.Fits {
		printf.Fprintf(&b, "Fits in the %s budget with %s to spare.\n\n", p.Budget.mib(), p.Headroom.mib())
	} else {
		printf.Fprintf(&b, "Cannot fit this configuration in the %s budget.\n\n", p.Budget.mib())
		if p.Failure != nil && p.Failure.Reason != FailureOverBudget {
			printf.Fprintf(&b, "  %s\n\n", p.Failure.Message)
		}
	}
	if e := p.Engine; e != nil {
		printf.Fprintf(&b, "  planned as %s\n\n", PlannedAs(e))
	}
	p.writeItems(&b)
	p.writeCapacity(&b)
	p.writeEngine(&b)
	p.writeLevers(&b)
	for _, w := range p.Warnings {
		printf.Fprintf(&b, "\n  warning: %s\n", w)
	}
	return b.String()
}

func (p *Plan) writeItems(b *strings.Builder) {
	const w = 42
	printf.Fprintf(b, "  %-*s %8s  %-6s %s\n", w, "requested", "MiB", "tier", "source")
	for _, it := range p.Items {
		printf.Fprintf(b, "    %-*s %8d  %-6s %s\n", w-2, it.Name, it.Bytes.MiB(), it.Tier, p.Input.Calibration.ItemSource(it.Source))
	}
	printf.Fprintf(b, "    %-*s %8s\n", w-2, "", "-----")
	printf.Fprintf(b, "    %-*s %8d", w-2, "total", p.Total.MiB())
	if p.Fits {
		printf.Fprintf(b, "   of %d MiB\n", p.Budget.MiB())
	} else {
		printf.Fprintf(b, "   over by %d MiB\n", (p.Total - p.Budget).MiB())
	}
}

func (p *Plan) writeCapacity(b *strings.Builder) {
	printf.Fprintf(b, "\n  KV: %d %s of %d %s, %s/token, %s %s\n", p.KV.Blocks, plural(int(p.KV.Blocks), "block", "blocks"),
		p.KV.BlockTokens, plural(int(p.KV.BlockTokens), "token", "tokens"), p.KV.BytesPerToken, p.KV.Dtype, p.KV.Bytes)
	if s := p.KV.SWA; s != nil {
		printf.Fprintf(b, "  SWA KV: %d blocks (%d per sequence, window %d), %s\n", s.Blocks, s.BlocksPerSeq, s.Window, s.Bytes)
	}
	if c := p.Capacity; c != nil {
		printf.Fprintf(b, "  capacity: %d %s of %d tokens; %d tokens at batch %d\n",
			c.MaxSeqsAtMaxLen, plural(int(c.MaxSeqsAtMaxLen), "sequence", "sequences"), p.Input.Limits.MaxSeqLen, c.MaxLenAtBatch, max(p.Input.Limits.MaxBatch, 1))
	}
}

func (p *Plan) writeLevers(b *strings.Builder) {
	switch len(p.Levers) {
	case 0:
	case 1:
		b.WriteString("\n  the one lever that can matter\n")
	default:
		printf.Fprintf(b, "\n  the %d best levers\n", len(p.Levers))
	}
	for _, l := range p.Levers {
		printf.Fprintf(b, "    %-40s frees %6d MiB%s\n", l.Knob.display(l.From, l.To), l.Frees.MiB(), fitNote(l))
	}
	if c := p.Combination; c != nil {
		b.WriteString("\n  no single lever fits; the smallest combination that does\n")
		for _, l := range c.Changes {
			printf.Fprintf(b, "    %-40s frees %6d MiB\n", l.Knob.display(l.From, l.To), l.Frees.MiB())
		}
	}
}

func fitNote(l Lever) string {
	s := ""
	if !l.Fits {
		s = "  (not enough alone)"
	}
	if l.Limit != "" && l.Limit != l.To {
		s += printf.Sprintf("  (exact limit %s)", l.Limit)
	}
	return s
}

// display renders a change of k as the seed's report does.
func (k Knob) display(from, to string) string {
	if k == KnobBudget {
		return printf.Sprintf("budget %s -> %s MiB", mibString(from), mibString(to))
	}
	return printf.Sprintf("%s %s -> %s", k, from, to)
}

// mibString returns a lever's byte count, a decimal string, in MiB; 0 when
// it is not a number.
func mibString(bytes string) string {
	n, _ := strconv.ParseInt(strings.TrimSpace(bytes), 10, 64)
	return strconv.FormatInt(Bytes(n).MiB(), 10)
}

// writeEngine states the plan in its engine's terms: the answer people ask
// of that engine, the host memory beside the device, the launch command.
func (p *Plan) writeEngine(b *strings.Builder) {
	e := p.Engine
	if e == nil {
		return
	}
	if a := e.LlamaCpp; a != nil {
		printf.Fprintf(b, "  llama.cpp: -c %d -np %d: %d cells x %d %s", a.CtxSize, a.Parallel, a.CtxSeq, a.Streams, plural(a.Streams, "stream", "streams"))
		if a.SWACells > 0 {
			printf.Fprintf(b, ", sliding-window layers %d cells", a.SWACells)
		}
		noun := "GPU"
		if r := p.Input.Rank; r != nil && r.Layout.GPUs() > 1 {
			noun = "GPUs"
		}
		if a.FullOffload {
			printf.Fprintf(b, "; every layer fits on the %s (-ngl %d)\n", noun, a.Layers)
		} else {
			printf.Fprintf(b, "; %d of %d layers fit on the %s (-ngl %d)\n", a.LayersThatFit, a.Layers, noun, a.LayersThatFit)
		}
	}
	if a := e.Pool; a != nil {
		printf.Fprintf(b, "  %s: KV pool %s, %d %s of %d %s, %d tokens; %.2fx concurrency at %d tokens; longest request %d tokens\n",
			e.Engine, a.PoolBytes, a.Blocks, plural(int(a.Blocks), "block", "blocks"), a.BlockTokens, plural(int(a.BlockTokens), "token", "tokens"), a.Tokens, a.MaxConcurrency, p.Input.Limits.MaxSeqLen, a.LongestRequest)
	}
	for i := range e.Spreads {
		printf.Fprintf(b, "  %s\n", e.Spreads[i].Line())
	}
	for _, it := range e.Outside {
		printf.Fprintf(b, "  outside the fraction: %s %d MiB\n", it.Name, it.Bytes.MiB())
	}
	for _, it := range e.Host {
		printf.Fprintf(b, "  host memory: %s %d MiB\n", it.Name, it.Bytes.MiB())
	}
	for _, n := range e.Notes {
		printf.Fprintf(b, "  note: %s\n", n)
	}
	printf.Fprintf(b, "\n  launch: %s\n", e.Launch)
	if e.LaunchAsAsked != "" {
		printf.Fprintf(b, "  as asked, does not fit: %s\n", e.LaunchAsAsked)
	}
}
