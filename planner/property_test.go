package planner

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDeterminism is V7: the plan is a pure function of its input; planning
// the same input twice, with other inputs planned between, and planning its
// JSON round trip all give byte-identical documents.
func TestDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	inputs := make([]Input, 1000)
	first := make([][]byte, len(inputs))
	for i := range inputs {
		inputs[i] = randomInput(r)
		p, _ := Report(inputs[i])
		first[i] = p.JSON()
	}
	for i, in := range inputs {
		p, _ := Report(in)
		if !bytes.Equal(p.JSON(), first[i]) {
			t.Fatalf("input %d: second Report differs", i)
		}
		back, err := ParseInput(mustInputJSON(t, &in))
		if err != nil {
			t.Fatalf("input %d: ParseInput(JSON) = %v", i, err)
		}
		q, _ := Report(back)
		if !bytes.Equal(q.JSON(), first[i]) {
			t.Fatalf("input %d: Report after a JSON round trip differs", i)
		}
	}
}

func mustInputJSON(t *testing.T, in *Input) []byte {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSufficiency is V8: a plan that fits never exceeds its budget, and its
// parts add up: items to the total, tiers to the total, KV blocks to bytes.
func TestSufficiency(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	fits := 0
	for i := 0; i < 2000; i++ {
		in := randomInput(r)
		p, err := PlanMemory(in)
		if _, bad := err.(*InputError); bad {
			t.Fatalf("input %d: %v", i, err)
		}
		if p.Fits {
			fits++
			if p.Total > p.Budget {
				t.Fatalf("input %d: fits with total %d over budget %d", i, p.Total, p.Budget)
			}
		}
		checkSums(t, i, &p)
	}
	if fits < 200 || fits > 1800 {
		t.Errorf("%d of 2000 random plans fit; the generator no longer spans both outcomes", fits)
	}
}

func checkSums(t *testing.T, i int, p *Plan) {
	t.Helper()
	var items, tiers Bytes
	for _, it := range p.Items {
		items = satAdd(items, it.Bytes)
	}
	for _, tt := range p.Tiers {
		tiers = satAdd(tiers, tt.Bytes)
	}
	if items != p.Total || tiers != p.Total {
		t.Fatalf("input %d: items sum %d, tiers sum %d, total %d", i, items, tiers, p.Total)
	}
	if p.KV.Reserve < p.KV.Bytes || p.KV.InitialCommit > p.KV.Reserve {
		t.Fatalf("input %d: KV bytes %d, reserve %d, initial commit %d", i, p.KV.Bytes, p.KV.Reserve, p.KV.InitialCommit)
	}
}

// TestMonotonicity: more batch, more length or a wider KV format never
// needs less memory.
func TestMonotonicity(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 1000; i++ {
		in := randomInput(r)
		in.Limits.MaxBatch = max(in.Limits.MaxBatch, 1)
		base := total(t, in)
		more := in
		more.Limits.MaxBatch++
		if got := total(t, more); got < base {
			t.Fatalf("input %d: batch %d→%d lowers total %d→%d", i, in.Limits.MaxBatch, more.Limits.MaxBatch, base, got)
		}
		longer := in
		longer.Limits.MaxSeqLen += 1 + r.IntN(1000)
		if got := total(t, longer); got < base {
			t.Fatalf("input %d: length %d→%d lowers total %d→%d", i, in.Limits.MaxSeqLen, longer.Limits.MaxSeqLen, base, got)
		}
		checkDtypes(t, i, in)
	}
}

func checkDtypes(t *testing.T, i int, in Input) {
	t.Helper()
	for _, a := range KVDtypes {
		for _, b := range KVDtypes {
			if a.RowBytes(256) <= b.RowBytes(256) {
				continue
			}
			wide, narrow := in, in
			wide.Limits.KVDtype, narrow.Limits.KVDtype = a, b
			if total(t, wide) < total(t, narrow) {
				t.Fatalf("input %d: KV %s needs less than %s", i, a, b)
			}
		}
	}
}

func total(t *testing.T, in Input) Bytes {
	t.Helper()
	p, err := PlanMemory(in)
	if _, bad := err.(*InputError); bad {
		t.Fatal(err)
	}
	return p.Total
}

// TestLeversAndSolversAreSound applies every lever a report gives and checks
// it does what it says, and checks the solvers' answers sit on the cliff.
func TestLeversAndSolversAreSound(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for i := 0; i < 300; i++ {
		in := randomInput(r)
		in.Limits.MaxBatch = max(in.Limits.MaxBatch, 1)
		p, _ := Report(in)
		for _, l := range p.Levers {
			checkLever(t, i, in, p.Total, l)
		}
		if c := p.Combination; c != nil {
			checkCombination(t, i, in, c)
		}
		checkSolvers(t, i, in)
	}
}

func checkLever(t *testing.T, i int, in Input, base Bytes, l Lever) {
	t.Helper()
	if l.Knob == KnobBudget {
		return
	}
	if layoutKnob(l.Knob) {
		checkLayoutLever(t, i, in, l)
		return
	}
	after := withKnob(t, in, l.Knob, l.To)
	q, _ := PlanMemory(after)
	if q.Fits != l.Fits || base-q.Total != l.Frees {
		t.Fatalf("input %d: lever %s %s→%s says fits %v frees %d; applied: fits %v frees %d",
			i, l.Knob, l.From, l.To, l.Fits, l.Frees, q.Fits, base-q.Total)
	}
}

func checkCombination(t *testing.T, i int, in Input, c *Combination) {
	t.Helper()
	for _, l := range c.Changes {
		in = withKnob(t, in, l.Knob, l.To)
	}
	if q, _ := PlanMemory(in); !q.Fits {
		t.Fatalf("input %d: combination %+v does not fit when applied", i, c.Changes)
	}
}

func checkSolvers(t *testing.T, i int, in Input) {
	t.Helper()
	n, _ := MaxSeqLen(in)
	if isPool(&in) {
		checkPoolSolvers(t, i, in, n)
		return
	}
	if n > 0 {
		at := in
		at.Limits.MaxSeqLen = n
		if q, _ := PlanMemory(at); !q.Fits {
			t.Fatalf("input %d: MaxSeqLen %d does not fit", i, n)
		}
	}
	if n < maxSeqLen {
		at := in
		at.Limits.MaxSeqLen = n + 1
		if q, _ := PlanMemory(at); q.Fits {
			t.Fatalf("input %d: MaxSeqLen %d, yet %d fits", i, n, n+1)
		}
	}
	pts, _ := Frontier(in, 16)
	for j := 1; j < len(pts); j++ {
		if pts[j].MaxSeqLen > pts[j-1].MaxSeqLen {
			t.Fatalf("input %d: frontier rises at batch %d", i, pts[j].Batch)
		}
	}
}

// checkPoolSolvers: under a pool engine MaxSeqLen n is a length at most
// the engine's max length, and, where the engine starts, the length of
// which the plan's capacity says max_batch requests fit at once; the
// frontier does not rise.
func checkPoolSolvers(t *testing.T, i int, in Input, n int) {
	t.Helper()
	if n > in.Limits.MaxSeqLen {
		t.Fatalf("input %d: MaxSeqLen %d is past the engine's max length %d", i, n, in.Limits.MaxSeqLen)
	}
	if p, _ := Report(in); p.Fits && p.Capacity != nil && p.Capacity.MaxLenAtBatch != n {
		t.Fatalf("input %d: MaxSeqLen %d, but the plan's capacity is %d tokens at batch %d", i, n, p.Capacity.MaxLenAtBatch, in.Limits.MaxBatch)
	}
	pts, _ := Frontier(in, 16)
	for j := 1; j < len(pts); j++ {
		if pts[j].MaxSeqLen > pts[j-1].MaxSeqLen || pts[j].MaxSeqLen > in.Limits.MaxSeqLen {
			t.Fatalf("input %d: frontier rises at batch %d, or passes the max length", i, pts[j].Batch)
		}
	}
}

// withKnob returns in with knob set to value, as the calculator's lever
// buttons do.
func withKnob(t *testing.T, in Input, k Knob, v string) Input {
	t.Helper()
	n, _ := strconv.Atoi(v)
	switch k {
	case KnobMaxSeqLen:
		in.Limits.MaxSeqLen = n
	case KnobMaxBatch:
		in.Limits.MaxBatch = n
	case KnobKVDtype:
		in.Limits.KVDtype = KVDtype(v)
	case KnobWeightCache:
		in.Features.WeightCache = WeightCache(v)
	case KnobBlockTokens:
		in.Limits.BlockTokens = n
	case KnobPrefillTokens:
		in.Limits.MaxPrefillTokens = n
	case KnobSpecDecodeK:
		in.Features.SpecDecodeK = n
	case KnobResidualRing:
		in.Features.ResidualRing = n
	case KnobSnapshots:
		in.Features.RecurrentSnapshots = n
	case KnobVision:
		in.Features.Vision = v == "on"
	case KnobCUDAGraphs:
		in.Features.CUDAGraphs = v == "on"
	case KnobEagerLoading:
		in.Features.EagerModuleLoading = v == "on"
	default:
		t.Fatalf("unknown knob %q", k)
	}
	return in
}
