package planner

// combine finds the smallest combination of knobs that fits: fewest knobs,
// then fewest rungs in all. It returns nil, and reports false, when even
// every knob at its strongest rung does not fit; nil and true when the
// search was cut short. The block-size and prefill knobs are left
// out: neither is monotone enough to search, and neither frees much.
func combine(tr *trials, all []knob, base, budget Bytes) (*Combination, bool) {
	ks := make([]knob, 0, len(all))
	for _, k := range all {
		if k.name != KnobBlockTokens && k.name != KnobPrefillTokens {
			ks = append(ks, k)
		}
	}
	if !fitsWith(tr, ks, strongest(ks), budget) {
		return nil, false
	}
	best := searchCombos(tr, ks, budget)
	if best == nil || tr.stopped {
		return nil, true
	}
	return describeCombo(tr, ks, best, base), true
}

func strongest(ks []knob) []int {
	idx := make([]int, len(ks))
	for i, k := range ks {
		idx[i] = len(k.rungs)
	}
	return idx
}

// fitsWith reports whether in fits with knob i at rung idx[i] (0 = unchanged),
// trying it in tr's copy of the input.
func fitsWith(tr *trials, ks []knob, idx []int, budget Bytes) bool {
	t := tr.t
	*t = *tr.in
	for i, r := range idx {
		if r > 0 {
			ks[i].rungs[r-1].applyTo(t)
		}
	}
	return tr.total(t) <= budget
}

// maxComboEvals bounds the combination search; past it the report gives
// no combination rather than take unbounded time.
const maxComboEvals = 20000

// searchCombos tries subsets of knobs by size, and within a size the step
// vectors by total steps, returning the first that fits.
func searchCombos(tr *trials, ks []knob, budget Bytes) []int {
	maxSteps := 0
	for _, k := range ks {
		maxSteps += len(k.rungs)
	}
	evals := 0
	for size := 2; size <= len(ks); size++ {
		for steps := size; steps <= maxSteps && evals <= maxComboEvals && !tr.stopped; steps++ {
			if idx := tryVectors(tr, ks, budget, size, steps, &evals); idx != nil {
				return idx
			}
		}
	}
	return nil
}

// tryVectors enumerates rung vectors with exactly size non-zero entries
// summing to steps, in a fixed order, and returns the first that fits.
func tryVectors(tr *trials, ks []knob, budget Bytes, size, steps int, evals *int) []int {
	idx := make([]int, len(ks))
	var found []int
	var walk func(i, left, stepsLeft int) bool
	walk = func(i, left, stepsLeft int) bool {
		if *evals > maxComboEvals || tr.stopped {
			return false
		}
		if left == 0 {
			if stepsLeft != 0 {
				return false
			}
			*evals++
			if fitsWith(tr, ks, idx, budget) {
				found = append([]int(nil), idx...)
				return true
			}
			return false
		}
		if i == len(ks) || len(ks)-i < left {
			return false
		}
		for r := 1; r <= min(len(ks[i].rungs), stepsLeft-(left-1)); r++ {
			idx[i] = r
			if walk(i+1, left-1, stepsLeft-r) {
				return true
			}
		}
		idx[i] = 0
		return walk(i+1, left, stepsLeft)
	}
	walk(0, size, steps)
	return found
}

// describeCombo applies the combination idx in tr's copy of the input, a
// knob at a time, and says what each change frees.
func describeCombo(tr *trials, ks []knob, idx []int, base Bytes) *Combination {
	c := &Combination{}
	t := tr.t
	*t = *tr.in
	for i, r := range idx {
		if r == 0 {
			continue
		}
		before := tr.total(t)
		ks[i].rungs[r-1].applyTo(t)
		c.Changes = append(c.Changes, Lever{Knob: ks[i].name, From: ks[i].from, To: ks[i].rungs[r-1].value(),
			Frees: before - tr.total(t)})
	}
	c.Frees = base - tr.total(t)
	for i := range c.Changes {
		c.Changes[i].Fits = true
	}
	return c
}
