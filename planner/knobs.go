package planner

import (
	"slices"
	"strconv"
)

// knobsFor lists the knobs of in that can free memory, each with its ladder.
func knobsFor(in *Input) []knob {
	ks := []knob{seqLenKnob(in), kvDtypeKnob(in), batchKnob(in), weightCacheKnob(in),
		switchKnob(KnobVision, in.Features.Vision && in.Model.Vision != nil, func(t *Input) { t.Features.Vision = false }),
		intKnob(KnobSpecDecodeK, in.Features.SpecDecodeK, func(t *Input, v int) { t.Features.SpecDecodeK = v }),
		switchKnob(KnobCUDAGraphs, in.Features.CUDAGraphs, func(t *Input) { t.Features.CUDAGraphs = false }),
		intKnob(KnobResidualRing, in.Features.ResidualRing, func(t *Input, v int) { t.Features.ResidualRing = v }),
		intKnob(KnobSnapshots, in.Features.RecurrentSnapshots, func(t *Input, v int) { t.Features.RecurrentSnapshots = v }),
		switchKnob(KnobEagerLoading, in.Features.EagerModuleLoading, func(t *Input) { t.Features.EagerModuleLoading = false }),
		prefillKnob(in), blockKnob(in)}
	out := ks[:0]
	for _, k := range ks {
		if len(k.rungs) > 0 && engineKnob(in, k.name) {
			out = append(out, k)
		}
	}
	return out
}

// roundLadder lists the values people configure below cur, largest first:
// powers of two and their halfway points (…, 2048, 3072, 4096, 6144, …).
func roundLadder(cur, floor int) []int {
	var vs []int
	for p := 1; p < cur && p <= 1<<30; p *= 2 {
		if p >= floor {
			vs = append(vs, p)
		}
		if h := p + p/2; p >= 2 && h < cur && h >= floor {
			vs = append(vs, h)
		}
	}
	for i, j := 0, len(vs)-1; i < j; i, j = i+1, j-1 {
		vs[i], vs[j] = vs[j], vs[i]
	}
	return vs
}

func intRungs(vals []int, set func(*Input, int)) []rung {
	rs := make([]rung, len(vals))
	for i, v := range vals {
		rs[i] = rung{n: v, set: set}
	}
	return rs
}

func seqLenKnob(in *Input) knob {
	set := func(t *Input, v int) { t.Limits.MaxSeqLen = v }
	return knob{name: KnobMaxSeqLen, from: strconv.Itoa(in.Limits.MaxSeqLen),
		rungs: intRungs(roundLadder(in.Limits.MaxSeqLen, 1), set),
		exact: func(t *Input, s *shape, budget Bytes) (rung, bool) {
			l := resolve(&t.Limits)
			n := maxLen(t, s, l, max(l.batch, 1), t.Limits.MaxSeqLen, budget)
			return rung{n: n, set: set}, n > 0
		}}
}

func batchKnob(in *Input) knob {
	b := in.Limits.MaxBatch
	k := knob{name: KnobMaxBatch, from: strconv.Itoa(b)}
	if b <= 1 {
		return k
	}
	set := func(t *Input, v int) { t.Limits.MaxBatch = v }
	k.rungs = intRungs(roundLadder(b, 1), set)
	k.exact = func(t *Input, s *shape, budget Bytes) (rung, bool) {
		l := resolve(&t.Limits)
		n := min(maxBatch(t, s, l, budget), b-1)
		return rung{n: n, set: set}, n > 0
	}
	k.exactTo = true
	return k
}

func kvDtypeKnob(in *Input) knob {
	cur := in.Limits.KVDtype.normalize()
	k := knob{name: KnobKVDtype, from: string(cur)}
	seen, last := false, cur.RowBytes(256)
	ladder := in.Serving.Engine.KVDtypes()
	noFP4 := in.Calibration.fp4Unsupported()
	for _, d := range ladder {
		if !kvDtypeAllowed(in, d) {
			continue
		}
		if d == cur {
			seen = true
		} else if b := d.RowBytes(256); seen && b < last && !(noFP4 && d == KVDtypeNVFP4) {
			last = b
			k.rungs = append(k.rungs, rung{name: string(d), apply: func(t *Input) { t.Limits.KVDtype = d }})
		}
	}
	return k
}

func weightCacheKnob(in *Input) knob {
	cur := in.Features.WeightCache.normalize()
	k := knob{name: KnobWeightCache, from: string(cur)}
	seen, noFP4 := false, in.Calibration.fp4Unsupported()
	for _, p := range WeightCaches {
		if p == cur {
			seen = true
		} else if seen && cacheBytes(&in.Model, p) < cacheBytes(&in.Model, cur) && !(noFP4 && p == WeightCacheNVFP4) {
			k.rungs = append(k.rungs, rung{name: string(p), apply: func(t *Input) { t.Features.WeightCache = p }})
		}
	}
	return k
}

func switchKnob(name Knob, on bool, off func(*Input)) knob {
	k := knob{name: name, from: "on"}
	if on {
		k.rungs = []rung{{name: "off", apply: off}}
	}
	return k
}

func intKnob(name Knob, cur int, set func(*Input, int)) knob {
	vals := roundLadder(cur, 1)
	if cur > 0 {
		vals = append(vals, 0)
	}
	return knob{name: name, from: strconv.Itoa(cur), rungs: intRungs(vals, set)}
}

func prefillKnob(in *Input) knob {
	cur := min(orDefaultInt(in.Limits.MaxPrefillTokens, defaultPrefill), in.Limits.MaxSeqLen)
	set := func(t *Input, v int) { t.Limits.MaxPrefillTokens = v }
	return knob{name: KnobPrefillTokens, from: strconv.Itoa(cur), rungs: intRungs(roundLadder(cur, 64), set)}
}

func blockKnob(in *Input) knob {
	cur := orDefaultInt(in.Limits.BlockTokens, defaultBlockTokens)
	set := func(t *Input, v int) { t.Limits.BlockTokens = v }
	var vals []int
	for v := cur / 2; v >= 1; v /= 2 {
		vals = append(vals, v)
	}
	return knob{name: KnobBlockTokens, from: strconv.Itoa(cur), rungs: intRungs(vals, set)}
}

// engineKnob reports whether knob k is a setting of in's engine: every
// knob is the seed's.
func engineKnob(in *Input, k Knob) bool {
	p := profileFor(in)
	return p == nil || slices.Contains(p.knobs, k)
}
