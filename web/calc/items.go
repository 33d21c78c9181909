package calc

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// This file is what the view says of one GPU's line items and of the
// batch: the rows of the table with their badges, and what a batch of 0
// plans, under the seed's engine or another.

// rows returns the line items of plan p, one GPU's.
func rows(p *planner.Plan) []Row {
	c := &p.Input.Calibration
	out := make([]Row, 0, len(p.Items))
	for _, it := range p.Items {
		r := Row{Key: it.Key, Name: it.Name, Tier: it.Tier, MiB: it.Bytes.MiB(), Source: it.Source, Badge: string(c.ItemSource(it.Source)), Detail: it.Detail}
		switch {
		case it.Source == planner.SourceUnmeasured:
			r.Badge = "not measured" // charged 0 bytes; the warnings say why
		case r.Badge != string(it.Source):
			r.Detail = strings.ReplaceAll(r.Detail, "measured: "+c.ID, "estimated: "+c.ID+", copied from a measured card")
		}
		out = append(out, r)
	}
	return out
}

// engineDefault returns the batch an engine plans for a state's batch of
// 0 (vLLM's max_num_seqs, llama-server's -np auto), or 0 when the plan p
// takes as many sequences as fit, as the seed's engine and SGLang do.
func engineDefault(p *planner.Plan) int {
	if p.Engine == nil {
		return 0
	}
	return p.Input.Limits.MaxBatch
}

// plannedBatch returns the batch plan p is for: the state's, or what its
// 0 became (the engine's default, or the sequences that fit).
func plannedBatch(s State, p *planner.Plan) int {
	switch {
	case s.Batch != 0:
		return s.Batch
	case engineDefault(p) > 0:
		return engineDefault(p)
	case p.Capacity != nil:
		return p.Capacity.MaxSeqsAtMaxLen
	}
	return 0
}

// batchHint says, under the batch field, what 0 or an empty field plans.
// Under an engine, p's batch is the engine's default only for a state's
// batch of 0; a batch given hides it, so the hint names no number then.
func batchHint(s State, p *planner.Plan) string {
	switch n := engineDefault(p); {
	case n > 0 && s.Batch != 0:
		return "0 or empty: the engine's own default."
	case n > 0:
		return "0 or empty: the engine's own default, " + groupInt(n) + " " + plural(int64(n), "sequence", "sequences") + "."
	}
	at := "at this length"
	if p.Capacity != nil {
		n := p.Capacity.MaxSeqsAtMaxLen
		at += ", " + groupInt(n) + " now"
	}
	return "0 or empty: as many sequences as fit " + at + "."
}
