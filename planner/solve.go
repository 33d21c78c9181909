package planner

// This file holds the inverse solvers: the largest max_seq_len that fits at
// a batch, the largest batch at a length, and the fit frontier. Every charge
// is non-decreasing in batch and in length, so each is a binary search over
// the arithmetic core.

// Point is one point of the fit frontier.
type Point struct {
	Batch     int `json:"batch"`
	MaxSeqLen int `json:"max_seq_len"` // 0 when not even one token fits
}

// Solution is the inverse solutions for an input.
type Solution struct {
	MaxSeqLen int     `json:"max_seq_len"` // at the input's max_batch
	MaxBatch  int     `json:"max_batch"`   // at the input's max_seq_len
	Frontier  []Point `json:"frontier"`    // batch 1..n
}

// totalAt returns the plan total for in at batch b and length n.
func totalAt(in *Input, s *shape, l limits, b, n int) Bytes {
	c := chargesAt(in, s, l, b, n)
	return c.total
}

// chargesAt returns the charges of in at batch b and length n.
//
//go:noinline
func chargesAt(in *Input, s *shape, l limits, b, n int) charges {
	l.batch, l.seqLen = b, n
	l.prefill = min(orDefaultInt(in.Limits.MaxPrefillTokens, defaultPrefill), n)
	return compute(in, s, l)
}

// largest returns the largest v in [lo, hi] with ok(v), or lo−1 if none;
// ok must be monotone (true, then false).
func largest(lo, hi int, ok func(int) bool) int {
	if lo > hi || !ok(lo) {
		return lo - 1
	}
	step := 1
	for lo+step <= hi && ok(lo+step) { // gallop from lo
		lo += step
		step *= 2
	}
	hi = min(hi, lo+step-1)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// maxBatch is the largest batch of l.seqLen-token sequences that fits budget.
func maxBatch(in *Input, s *shape, l limits, budget Bytes) int {
	return max(largest(1, maxBatchLimit, func(b int) bool {
		return totalAt(in, s, l, b, l.seqLen) <= budget
	}), 0)
}

// maxLen is the largest max_seq_len in [1, hi] at batch b that fits budget.
func maxLen(in *Input, s *shape, l limits, b, hi int, budget Bytes) int {
	return max(largest(1, hi, func(n int) bool {
		return totalAt(in, s, l, b, n) <= budget
	}), 0)
}

// lenAt is the answer of the length solvers at batch b: maxLen, or under
// a pool engine, whose start needs only one request to fit, the longest
// request, at most hi and the engine's max length l.seqLen (or the
// longest max length that starts, when that does not), of which b fit at
// once in the KV cache it allocates with max_num_seqs b.
func lenAt(in *Input, s *shape, l limits, b, hi int, budget Bytes) int {
	if !isPool(in) {
		return maxLen(in, s, l, b, hi, budget)
	}
	n := min(hi, l.seqLen)
	c := chargesAt(in, s, l, b, n)
	if c.total > budget {
		if n = maxLen(in, s, l, b, n, budget); n == 0 {
			return 0
		}
		c = chargesAt(in, s, l, b, n)
	}
	return c.pool.lenFor(c.kv.blocks, b, n)
}

// batchAt is the answer of the batch solvers: maxBatch, or under a pool
// engine the largest max_num_seqs b at which b requests of l.seqLen
// tokens fit in its KV cache at once.
func batchAt(in *Input, s *shape, l limits, budget Bytes) int {
	if !isPool(in) {
		return maxBatch(in, s, l, budget)
	}
	return max(largest(1, maxBatchLimit, func(b int) bool { return poolHolds(in, s, l, b, l.seqLen, budget) }), 0)
}

// poolHolds reports whether a pool engine started with max_num_seqs b and
// max length n fits budget and holds b requests of n tokens at once.
func poolHolds(in *Input, s *shape, l limits, b, n int, budget Bytes) bool {
	c := chargesAt(in, s, l, b, n)
	return c.total <= budget && int64(satMul(int64(b), c.pool.perRequest(int64(n), c.pool.tokens))) <= c.kv.blocks
}

// MaxSeqLen reports the largest max_seq_len that fits at the input's
// max_batch (1 when max_batch is automatic), or 0 when none does. Under a
// pool engine (vLLM, SGLang), which starts when one request fits, it is
// the longest request, at most the input's max_seq_len (the engine's max
// length), of which max_batch fit in its KV cache at once.
func MaxSeqLen(in Input) (int, error) {
	if err := Validate(&in); err != nil {
		return 0, err
	}
	normalizeEngine(&in)
	if in.Parallel.multi() {
		return layoutMaxSeqLen(&in), nil
	}
	sh, l := newShape(&in.Model, in.Limits.KVDtype), resolve(&in.Limits)
	s := &sh
	return lenAt(&in, s, l, max(l.batch, 1), maxSeqLen, budgetOf(&in)), nil
}

// MaxBatch reports the largest max_batch that fits at the input's
// max_seq_len, or 0 when not one sequence does; under a pool engine, the
// largest at which that many requests of max_seq_len fit at once.
func MaxBatch(in Input) (int, error) {
	if err := Validate(&in); err != nil {
		return 0, err
	}
	normalizeEngine(&in)
	if in.Parallel.multi() {
		return layoutMaxBatch(&in), nil
	}
	sh, l := newShape(&in.Model, in.Limits.KVDtype), resolve(&in.Limits)
	s := &sh
	return batchAt(&in, s, l, budgetOf(&in)), nil
}

// Frontier reports, for every batch from 1 to n, the largest max_seq_len
// that fits (as MaxSeqLen states it): the cliffs a slider should mark.
func Frontier(in Input, n int) ([]Point, error) {
	if err := Validate(&in); err != nil {
		return nil, err
	}
	normalizeEngine(&in)
	if n < 1 || n > 1<<16 {
		return nil, bad("frontier", "batch range 1..%d is out of range [1, 65536]", n)
	}
	if in.Parallel.multi() {
		return layoutFrontier(&in, n), nil
	}
	return frontier(&in, n), nil
}

func frontier(in *Input, n int) []Point {
	sh, l, budget := newShape(&in.Model, in.Limits.KVDtype), resolve(&in.Limits), budgetOf(in)
	s := &sh
	pts := make([]Point, n)
	hi := maxSeqLen
	for b := 1; b <= n; b++ {
		hi = lenAt(in, s, l, b, max(hi, 1), budget)
		pts[b-1] = Point{Batch: b, MaxSeqLen: hi}
	}
	return pts
}

// Solve reports the inverse solutions and the frontier for batch 1..n.
func Solve(in Input, n int) (Solution, error) {
	f, err := Frontier(in, n)
	if err != nil {
		return Solution{}, err
	}
	sol := Solution{Frontier: f}
	sol.MaxSeqLen, _ = MaxSeqLen(in)
	sol.MaxBatch, _ = MaxBatch(in)
	return sol, nil
}

// capacity is what the KV pool and headroom of a validated input hold;
// without lens, MaxLenAtBatch is left 0 (its search is most of the cost).
func capacity(in *Input, lens bool) Capacity {
	sh, l, budget := newShape(&in.Model, in.Limits.KVDtype), resolve(&in.Limits), budgetOf(in)
	s := &sh
	seqs := batchAt(in, s, l, budget)
	if l.batch == 0 {
		l.batch = seqs
	}
	c := Capacity{MaxSeqsAtMaxLen: seqs}
	if lens {
		c.MaxLenAtBatch = lenAt(in, s, l, max(l.batch, 1), maxSeqLen, budget)
	}
	return c
}
