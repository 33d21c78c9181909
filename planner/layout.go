package planner

// This file plans a parallel layout on top of the single-GPU planner: every
// rank's share of the model is computed (shard.go), ranks that hold the same
// bytes on the same GPU are collapsed, each distinct rank is planned as one
// GPU's input, and the plans are joined into one document whose figures are
// the sums over all GPUs and whose Layout carries the plan of every
// distinct rank and names the binding rank.

import (
	"slices"
	"sort"
)

// Layout is the per-rank part of a multi-GPU plan.
type Layout struct {
	// Parallel is the layout's sizes, resolved (no zero sizes).
	Parallel Parallel `json:"parallel"`
	GPUs     int      `json:"gpus"`
	// Binding is the rank that decides the plan: the one that fails, or
	// with several, the one furthest over; when all fit, the one with the
	// least headroom. It is the first rank of its group.
	Binding int `json:"binding_rank"`
	// Ranks holds one plan per distinct rank, in rank order.
	Ranks []RankPlan `json:"ranks"`
}

// RankPlan is the plan of one or more ranks that hold the same bytes.
type RankPlan struct {
	Ranks []int `json:"ranks"`
	Plan  Plan  `json:"plan"`
}

// rankGroup is a distinct rank's input and what makes it distinct.
type rankGroup struct {
	in           Input
	stage, local int
	calRank      int // a rank whose calibration the group's ranks share
}

// groupKey is what makes a rank distinct: its stage, its experts and its
// calibration (named by its first rank), and how many ranks share it.
type groupKey struct {
	stage, local, first, ranks int
}

// rankGroups returns the distinct ranks of a validated layout input, in
// the order of their first ranks. It finds the groups first and then makes
// each group's input once, in its place, its ranks in one slice that the
// groups share: a layout of 16 GPUs has two or four distinct ranks.
func rankGroups(in *Input) []rankGroup {
	p := &in.Parallel
	n := p.GPUs()
	var idBuf [64]int
	var keyBuf [8]groupKey
	ids, keys := idBuf[:0], keyBuf[:0]
	if n > len(idBuf) {
		ids = make([]int, 0, n)
	}
	var devs []int // -sm tensor: each device's first alike device, and its model
	var models []Model
	if llamaTensor(in) {
		devs, models = llamaTensorDevices(in)
	}
	ids, keys = groupRanks(in, devs, ids, keys)
	gs, all := make([]rankGroup, len(keys)), make([]int, 0, n)
	for i, k := range keys {
		g := &gs[i]
		g.stage, g.local, g.calRank = k.stage, k.local, k.first
		rankInput(in, p.coord(k.first), in.rankCalibration(k.first), &g.in)
		if devs != nil {
			llamaTensorRankInput(&g.in, in, &models[p.coord(k.first).tpRank], in.rankCalibration(k.first))
		}
		g.in.Rank.Ranks, all = all[len(all):len(all):len(all)+k.ranks], all[:len(all)+k.ranks]
	}
	for r, i := range ids {
		x := gs[i].in.Rank
		x.Ranks = append(x.Ranks, r)
	}
	return gs
}

// groupRanks appends to ids the group of every rank of in, in rank order,
// and to keys each group, counting its ranks; devs, when not nil, holds
// each tensor rank's first alike device (llama.cpp's -sm tensor), which
// stands for its experts. It walks the ranks as nested
// loops, replica, stage and tensor rank, rather than dividing each rank's
// number into its coordinates: a division is slow, and a layout has
// thousands of ranks at most but every plan of it walks them all.
func groupRanks(in *Input, devs, ids []int, keys []groupKey) ([]int, []groupKey) {
	p := &in.Parallel
	tp, pp, ep, moeTP := p.tp(), p.pp(), p.ep(), p.moeTP()
	experts := 0
	if e := in.Model.MoE; e != nil {
		experts = e.Experts
	}
	r := 0
	for replica := range p.dp() {
		for stage := range pp {
			for t := range tp {
				local := 0
				if experts > 0 {
					local = localExperts(experts, ep, ((replica*tp+t)/moeTP)%ep)
				}
				if devs != nil {
					local = devs[t]
				}
				i := findGroup(in, keys, stage, local, in.rankCalibration(r))
				if i < 0 {
					i = len(keys)
					keys = append(keys, groupKey{stage: stage, local: local, first: r})
				}
				keys[i].ranks++
				ids = append(ids, i)
				r++
			}
		}
	}
	return ids, keys
}

// findGroup returns the index of the group in keys that a rank of stage,
// local experts and calibration cal belongs to, or -1. The groups name
// their calibration by a rank, not a pointer into in, so that in stays on
// its caller's stack.
func findGroup(in *Input, keys []groupKey, stage, local int, cal *Calibration) int {
	for i := range keys {
		if keys[i].stage == stage && keys[i].local == local && sameCalibration(in.rankCalibration(keys[i].first), cal) {
			return i
		}
	}
	return -1
}

// rankParts are what a rank's input points to, allocated together: its
// Rank, its model's MoE and, when the model's fit in them (most do), the
// backing of its model's layer groups, weight classes and matrices.
type rankParts struct {
	rank     Rank
	moe      MoE
	layers   [2]LayerGroup
	classes  [8]WeightClass
	matrices [16]Matrix
	_        [0]func() // not comparable: no equality code for it
}

// rankInput sets t to the single-GPU input of rank c on calibration cal,
// its ranks left for rankGroups to list.
func rankInput(in *Input, c coord, cal *Calibration, t *Input) {
	p := &in.Parallel
	parts := new(rankParts)
	*t = *in
	t.Model = rankModel(&in.Model, p, c, parts)
	t.Calibration = *cal
	t.Parallel = Parallel{}
	t.Features.Vision = in.Features.Vision && t.Model.Vision != nil
	if p.llamaSplit() {
		t.Serving.LlamaCpp.GPULayers = 0 // the device holds all of its share; the CPU's layers are in no share
	}
	start, end := p.stageRange(in.Model.NumLayers(), c.stage)
	comm, src := commFor(p, cal)
	parts.rank = Rank{Layout: p.sizes(), Stage: c.stage, Layers: [2]int{start, end}, Comm: comm, CommSource: src}
	t.Rank = &parts.rank
	if e := in.Model.MoE; e != nil && e.Experts > 0 {
		t.Rank.Experts = localExperts(e.Experts, p.ep(), c.epRank)
	}
}

// planLayout plans a validated layout input into top, the zero Plan, to
// depth d, its lever search asking st (nil: never stop). Each rank's plan
// is made in its place in the layout.
func planLayout(in *Input, d depth, st *stopper, top *Plan) {
	gs := rankGroups(in)
	rs := make([]RankPlan, len(gs))
	for i := range gs {
		p := &rs[i].Plan
		rs[i].Ranks = gs[i].in.Rank.Ranks
		planValid(&gs[i].in, p)
		if d >= depthRow {
			c := capacity(&gs[i].in, d == depthReport)
			p.Capacity = &c
			sh := newShape(&gs[i].in.Model, gs[i].in.Limits.KVDtype)
			engineReport(&gs[i].in, &sh, p)
			layoutLaunch(p.Engine, &gs[i].in, &in.Model)
		}
	}
	bind := binding(rs)
	joinPlans(in, rs, bind, top)
	if d == depthReport && !top.Fits {
		top.Levers, top.Combination = layoutFailureLevers(in, gs, bind, st)
		llamaOffloadNote(in, rs)
	}
}

// binding returns the index of the deciding rank plan.
func binding(rs []RankPlan) int {
	b := 0
	for i := range rs {
		x, y := &rs[i].Plan, &rs[b].Plan
		if (!x.Fits && y.Fits) || (x.Fits == y.Fits && x.Headroom < y.Headroom) {
			b = i
		}
	}
	return b
}

// joinPlans sums the rank plans over every GPU of the layout into top, the
// zero Plan.
func joinPlans(in *Input, rs []RankPlan, bind int, top *Plan) {
	top.Schema, top.Fits, top.Levers, top.Input = PlanSchema, true, []Lever{}, *in
	var sums itemSums
	for i := range rs {
		p, n := &rs[i].Plan, int64(len(rs[i].Ranks))
		top.Fits = top.Fits && p.Fits
		top.Budget = satAdd(top.Budget, satMul(int64(p.Budget), n))
		top.Total = satAdd(top.Total, satMul(int64(p.Total), n))
		top.Weights = satAdd(top.Weights, satMul(int64(p.Weights), n))
		k := key(0)
		for j := range p.Items {
			k = keyFrom(p.Items[j].Key, k)
			addItem(&sums, &p.Items[j], k, n)
		}
		for _, w := range p.Warnings {
			if !slices.Contains(top.Warnings, w) {
				top.Warnings = append(top.Warnings, w)
			}
		}
	}
	top.Headroom = top.Budget - top.Total
	top.Items = sortedItems(&sums)
	llamaSumNames(in, top.Items)
	top.Tiers = tierTotals(top.Items)
	b := &rs[bind].Plan
	top.KV = b.KV
	top.Capacity = minCapacity(rs)
	if b.Failure != nil {
		f := *b.Failure
		f.Message = "rank " + itoa(rs[bind].Ranks[0]) + ": " + f.Message
		top.Failure = &f
	}
	top.Layout = &Layout{Parallel: in.Parallel.sizes(), GPUs: in.Parallel.GPUs(), Binding: rs[bind].Ranks[0], Ranks: rs}
}

// itemSums is a layout's items summed by charge: the first rank plan's
// item of each charge (its name, tier and source) and the bytes of all.
// It is indexed by charge, so the sums come out in the seed's allocation
// order.
type itemSums struct {
	first [numKeys + 1]*Item
	bytes [numKeys + 1]Bytes
}

// addItem adds n GPUs' worth of it, an item of charge k, to its charge's
// sum.
func addItem(sums *itemSums, it *Item, k key, n int64) {
	b := satMul(int64(it.Bytes), n)
	if f := sums.first[k]; f == nil || f.Key == "" {
		sums.first[k], sums.bytes[k] = it, b
		return
	}
	sums.bytes[k] = satAdd(sums.bytes[k], b)
}

// keyFrom is the charge an item key names, numKeys for none (items are
// built from itemSpecs, so none is only a key this file does not know).
// It looks from charge k on first: a plan's items are in charge order, so
// each of them is found at or just after the one before it.
func keyFrom(s string, k key) key {
	for j := k; j < numKeys; j++ {
		if itemSpecs[j].key == s {
			return j
		}
	}
	for j := key(0); j < k; j++ {
		if itemSpecs[j].key == s {
			return j
		}
	}
	return numKeys
}

// sortedItems lists the summed items in the seed's allocation order.
func sortedItems(sums *itemSums) []Item {
	n := 0
	for _, f := range sums.first {
		if f != nil && f.Key != "" {
			n++
		}
	}
	out := make([]Item, 0, n)
	for k, f := range sums.first {
		if f != nil && f.Key != "" {
			out = append(out, *f)
			it := &out[len(out)-1]
			it.Bytes, it.Detail = sums.bytes[k], "summed over the layout's GPUs"
		}
	}
	return out
}

// minCapacity is what every rank can hold: the smallest capacities.
func minCapacity(rs []RankPlan) *Capacity {
	var c *Capacity
	for i := range rs {
		x := rs[i].Plan.Capacity
		if x == nil {
			continue
		}
		if c == nil {
			c = &Capacity{MaxSeqsAtMaxLen: x.MaxSeqsAtMaxLen, MaxLenAtBatch: x.MaxLenAtBatch}
		}
		c.MaxSeqsAtMaxLen = min(c.MaxSeqsAtMaxLen, x.MaxSeqsAtMaxLen)
		c.MaxLenAtBatch = min(c.MaxLenAtBatch, x.MaxLenAtBatch)
	}
	return c
}

// layoutTotals returns, for a validated layout input, the largest total
// any distinct rank needs beyond its budget (negative: the least headroom)
// and that rank's total, treating automatic batch as one sequence.
func layoutOver(in *Input) (over, total Bytes) {
	over = -MaxBytes
	gs := rankGroups(in)
	for i := range gs {
		t := evalTotal(&gs[i].in)
		if o := t - budgetOf(&gs[i].in); o > over {
			over, total = o, t
		}
	}
	return over, total
}

// sameLayout reports where a decoded layout plan disagrees with its re-plan.
func sameLayout(p, q *Plan) error {
	if (p.Layout == nil) != (q.Layout == nil) {
		return bad("layout", "plan does not reproduce: the layout is missing or extra")
	}
	if p.Layout == nil {
		return nil
	}
	a, b := p.Layout, q.Layout
	if len(a.Ranks) != len(b.Ranks) || a.Binding != b.Binding {
		return bad("layout", "plan does not reproduce: %d distinct ranks, binding %d; re-planned %d, binding %d",
			len(a.Ranks), a.Binding, len(b.Ranks), b.Binding)
	}
	for i := range a.Ranks {
		if err := sameFigures(&a.Ranks[i].Plan, &b.Ranks[i].Plan); err != nil {
			return bad("layout.ranks", "rank %d: %v", a.Ranks[i].Ranks[0], err)
		}
	}
	return nil
}

// RankPlanOf returns the plan that rank r of a layout plan serves, as a
// single-GPU plan document of its own; a single-GPU plan serves rank 0.
func (p *Plan) RankPlanOf(r int) (Plan, bool) {
	if p.Layout == nil {
		return *p, r == 0
	}
	for _, rp := range p.Layout.Ranks {
		i := sort.SearchInts(rp.Ranks, r)
		if i < len(rp.Ranks) && rp.Ranks[i] == r {
			return rp.Plan, true
		}
	}
	return Plan{}, false
}

// planAny plans a validated input on one GPU or as a layout into p, the
// zero Plan: the plan alone.
func planAny(in *Input, p *Plan) {
	if in.Parallel.multi() {
		planLayout(in, depthPlan, nil, p)
		return
	}
	planValid(in, p)
}
