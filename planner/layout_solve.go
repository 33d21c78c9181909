package planner

// This file answers the inverse questions for a layout: every rank serves
// the same sequences, so the largest length or batch the layout holds is
// the smallest any distinct rank holds.

// layoutMaxSeqLen is the largest max_seq_len every rank holds.
func layoutMaxSeqLen(in *Input) int {
	best := maxSeqLen
	gs := rankGroups(in)
	for i := range gs {
		t := &gs[i].in
		sh, l := newShape(&t.Model, t.Limits.KVDtype), resolve(&t.Limits)
		best = min(best, lenAt(t, &sh, l, max(l.batch, 1), maxSeqLen, budgetOf(t)))
	}
	return best
}

// layoutMaxBatch is the largest max_batch every rank holds.
func layoutMaxBatch(in *Input) int {
	best := maxBatchLimit
	gs := rankGroups(in)
	for i := range gs {
		t := &gs[i].in
		sh, l := newShape(&t.Model, t.Limits.KVDtype), resolve(&t.Limits)
		best = min(best, batchAt(t, &sh, l, budgetOf(t)))
	}
	return best
}

// layoutFrontier is the pointwise smallest frontier over the ranks.
func layoutFrontier(in *Input, n int) []Point {
	var pts []Point
	gs := rankGroups(in)
	for i := range gs {
		f := frontier(&gs[i].in, n)
		if pts == nil {
			pts = f
			continue
		}
		for i := range pts {
			pts[i].MaxSeqLen = min(pts[i].MaxSeqLen, f[i].MaxSeqLen)
		}
	}
	return pts
}
