package planner

import "github.com/vramplan/vramplan/internal/printf"

// This file turns charges into the plan document: named items, tier totals,
// the KV plan and the failure.

type itemSpec struct {
	key    string
	tier   Tier
	source Source
}

var itemSpecs = [numKeys]itemSpec{
	keyContext:        {"cuda_context", TierDriver, SourceCalibrated},
	keySidecar:        {"sidecar_context", TierDriver, SourceCalibrated},
	keyLibrary:        {"library_reserve", TierDriver, SourceCalibrated},
	keyComm:           {"communication", TierDriver, SourceEstimated},
	keyCublas:         {"cublaslt_workspace", TierEnginePersistent, SourceFormula},
	keyBench:          {"algo_bench_scratch", TierEnginePersistent, SourceFormula},
	keyGrouped:        {"grouped_gemm_state", TierEnginePersistent, SourceFormula},
	keyAttnScores:     {"attention_scores", TierEnginePersistent, SourceFormula},
	keyExecPersistent: {"executor_persistent", TierEnginePersistent, SourceFormula},
	keyExecShared:     {"executor_shared", TierEnginePersistent, SourceFormula},
	keyExecDecode:     {"executor_decode", TierEnginePersistent, SourceFormula},
	keyMoE:            {"moe_scratch", TierEnginePersistent, SourceFormula},
	keyMLA:            {"mla_scratch", TierEnginePersistent, SourceFormula},
	keySpec:           {"spec_decode_staging", TierEnginePersistent, SourceFormula},
	keyGraphs:         {"cuda_graph_pool", TierEnginePersistent, SourceCalibrated},
	keyEngineCompute:  {"compute_buffer", TierEnginePersistent, SourceEstimated},
	keyCUDAPool:       {"cuda_pool", TierScratch, SourceEstimated},
	keyActivation:     {"activation_peak", TierScratch, SourceEstimated},
	keyNonTorch:       {"non_torch", TierDriver, SourceEstimated},
	keySamplerState:   {"sampler_state", TierEnginePersistent, SourceFormula},
	keyGraphEstimate:  {"cuda_graphs", TierEnginePersistent, SourceCalibrated},
	keyVisionStaging:  {"vision_staging", TierEnginePersistent, SourceFormula},
	keyMeasuredT2:     {"engine_persistent", TierEnginePersistent, SourceCalibrated},
	keyWeights:        {"weights", TierModelResident, SourceExact},
	keyWeightCache:    {"weight_cache", TierModelResident, SourceFormula},
	keyVisionTower:    {"vision_tower", TierModelResident, SourceExact},
	keyLoadSlack:      {"load_slack", TierModelResident, SourceEstimated},
	keyRing:           {"residual_ring", TierPooled, SourceExact},
	keySSM:            {"ssm_state", TierPooled, SourceExact},
	keySnapshots:      {"recurrent_snapshots", TierPooled, SourceExact},
	keySWA:            {"kv_swa", TierPooled, SourceExact},
	keyKV:             {"kv", TierPooled, SourceExact},
	keyScratch:        {"scratch", TierScratch, SourceFormula},
}

var tierOrder = []Tier{TierDriver, TierEnginePersistent, TierModelResident, TierPooled, TierScratch}

// planValid plans a validated input into p, which must be the zero Plan.
// It writes into its caller's Plan, not a value it returns: a Plan is
// more than a kilobyte (it carries its Input), and each return by value
// between here and PlanMemory was a copy of all of it.
func planValid(in *Input, p *Plan) {
	sh := newShape(&in.Model, in.Limits.KVDtype)
	s := &sh
	l := resolve(&in.Limits)
	budget := budgetOf(in)
	floor := false
	if l.batch == 0 && profileFor(in) == nil {
		l.batch = maxBatch(in, s, l, budget)
		floor = l.batch == 0
		l.batch = max(l.batch, 1)
	}
	c := compute(in, s, l)
	p.Schema, p.Budget, p.Total, p.Headroom = PlanSchema, budget, c.total, budget-c.total
	p.Weights, p.Levers, p.Input = in.Model.Weights.Bytes, []Lever{}, *in
	p.Items = c.items(in, l)
	p.Tiers = tierTotals(p.Items)
	p.KV = kvPlan(in, s, &c, l)
	p.Warnings = warnings(in)
	p.Fits = c.total <= budget && !floor
	if !p.Fits {
		p.Failure = failure(p, floor, l)
	}
}

// budgetOf is the memory in's charges must fit in: its engine's share of
// the budget (or of the device total).
func budgetOf(in *Input) Bytes {
	if p := profileFor(in); p != nil {
		return p.budget(in)
	}
	return seedBudget(in)
}

// seedBudget is the budget, or the device total when none is given.
func seedBudget(in *Input) Bytes {
	if in.Budget > 0 {
		return in.Budget
	}
	return in.Calibration.DeviceTotal
}

func (c *charges) items(in *Input, l limits) []Item {
	n := 0
	for _, ok := range c.present {
		if ok {
			n++
		}
	}
	items := make([]Item, n) // exactly: a slice of every key is 4 KB to clear per plan
	i := 0
	for k := key(0); k < numKeys; k++ {
		if !c.present[k] {
			continue
		}
		it, sp := &items[i], &itemSpecs[k] // filled in place: an Item is 88 bytes
		i++
		it.Key, it.Tier, it.Bytes, it.Source = sp.key, sp.tier, c.amount[k], itemSource(k, in)
		it.Name, it.Detail = describe(k, in, c, l)
	}
	return items
}

func itemSource(k key, in *Input) Source {
	switch k {
	case keyWeights:
		return orSource(in.Model.Weights.Source)
	case keyVisionTower:
		return orSource(in.Model.Vision.Source)
	case keyComm:
		return in.Rank.CommSource
	case keyScratch:
		if in.Measured.Scratch > 0 {
			return SourceCalibrated
		}
	case keyGraphs:
		if in.Calibration.GraphExec == 0 {
			return SourceUnmeasured
		}
	case keyGraphEstimate:
		if in.Calibration.GraphExec == 0 {
			return SourceEstimated
		}
	case keyLoadSlack:
		if sglangLoadRuled(&in.Model) {
			return SourceFormula
		}
	}
	return itemSpecs[k].source
}

func orSource(s Source) Source {
	if s == "" {
		return SourceFormula
	}
	return s
}

// tierTotals sums items by tier, in tierOrder, in one pass over the items.
func tierTotals(items []Item) []TierTotal {
	out := make([]TierTotal, len(tierOrder))
	for i, t := range tierOrder {
		out[i].Tier = t
	}
	for i := range items {
		if j := tierIndex(items[i].Tier); j >= 0 {
			out[j].Bytes = satAdd(out[j].Bytes, items[i].Bytes)
		}
	}
	return out
}

// tierIndex is t's index in tierOrder, -1 for none.
func tierIndex(t Tier) int {
	switch t {
	case TierDriver:
		return 0
	case TierEnginePersistent:
		return 1
	case TierModelResident:
		return 2
	case TierPooled:
		return 3
	case TierScratch:
		return 4
	}
	return -1
}

func kvPlan(in *Input, s *shape, c *charges, l limits) KVPlan {
	if profileFor(in) != nil {
		return engineKVPlan(in, s, c, l)
	}
	k := KVPlan{Dtype: s.dtype, Bytes: satAdd(c.kv.global, c.kv.swa), Blocks: c.kv.blocks,
		BlockTokens: l.block, BlockBytes: c.kv.globalBlock, BytesPerToken: s.fullPerToken,
		Reserve: satAdd(c.amount[keyKV], c.amount[keySWA])}
	if len(s.sliding) > 0 {
		var per Bytes
		for _, w := range s.sliding {
			per = satAdd(per, w.perToken)
		}
		k.SWA = &SWAPlan{Blocks: c.kv.swaBlocks, BlocksPerSeq: c.kv.swaPerSeq, Window: s.maxWindow,
			Bytes: c.kv.swa, BytesPerToken: per}
	}
	g := in.Calibration.granularity()
	k.CommitChunk = roundUp(orDefault(in.Engine.CommitChunk, defaultCommitChunk), g)
	one := s.kvFor(1, l.seqLen, l.block)
	k.InitialCommit = min(k.Reserve, roundUp(satAdd(one.global, one.swa), k.CommitChunk))
	k.Shrink = ShrinkPolicy(&in.Calibration, k.CommitChunk)
	return k
}

func failure(p *Plan, floor bool, l limits) *Failure {
	f := &Failure{Reason: FailureOverBudget, Budget: p.Budget, Total: p.Total, OverBy: p.Total - p.Budget}
	f.Message = printf.Sprintf("cannot fit this configuration in the %s budget: over by %s",
		p.Budget.mib(), f.OverBy.mib())
	if fixed := satAdd(p.Weights, tierBytes(p.Tiers, TierDriver)); fixed > p.Budget {
		f.Reason = FailureWeights
		f.Message = weightsMessage(p, fixed)
		return f
	}
	if floor {
		f.Reason = FailureAdmissionFloor
		f.OverBy = max(f.OverBy, 0)
		f.Message = printf.Sprintf("the KV pool cannot hold one sequence of %s tokens in the %s budget "+
			"(admission floor): the plan needs %s for one", Grouped(int64(l.seqLen)), p.Budget.mib(), p.Total.mib())
	}
	return f
}

// weightsMessage says that the weights do not fit, first, and by how much.
func weightsMessage(p *Plan, fixed Bytes) string {
	if p.Weights > p.Budget {
		return printf.Sprintf("the weights alone are %s, %s more than the %s budget: no limit or feature "+
			"can fit them, only a larger budget, smaller weights or more GPUs", p.Weights.mib(), (p.Weights - p.Budget).mib(), p.Budget.mib())
	}
	return printf.Sprintf("the weights (%s) and what the driver charges before them (%s) are %s more than "+
		"the %s budget: no limit or feature can fit them, only a larger budget, smaller weights or more GPUs",
		p.Weights.mib(), (fixed - p.Weights).mib(), (fixed - p.Budget).mib(), p.Budget.mib())
}

func tierBytes(ts []TierTotal, t Tier) Bytes {
	for _, x := range ts {
		if x.Tier == t {
			return x.Bytes
		}
	}
	return 0
}

func warnings(in *Input) []string {
	var w []string
	m := &in.Model
	if m.MaxContext > 0 && in.Limits.MaxSeqLen > m.MaxContext {
		w = append(w, printf.Sprintf("max_seq_len %d exceeds the model's trained context of %d tokens",
			in.Limits.MaxSeqLen, m.MaxContext))
	}
	if in.Features.Vision && m.Vision == nil {
		w = append(w, "vision is on but the model has no vision tower; nothing is charged for it")
	}
	if in.Features.WeightCache.normalize() != WeightCacheNone && len(m.Weights.Matrices) == 0 {
		w = append(w, "a weight cache is on but the model lists no GEMM matrices; nothing is charged for it")
	}
	if in.Features.CUDAGraphs && in.Calibration.GraphExec == 0 {
		w = append(w, printf.Sprintf("CUDA graphs are on but calibration %s has not measured graph_exec_bytes; "+
			"the graphs' own memory is not charged", in.Calibration.ID))
	}
	return append(w, hardwareWarnings(in)...)
}

// engineKVPlan states an engine's KV cache: no VMM reservation, no commit
// chunks; for llama.cpp the blocks are cells, for the pool engines blocks.
func engineKVPlan(in *Input, s *shape, c *charges, l limits) KVPlan {
	k := KVPlan{Dtype: s.dtype, Bytes: satAdd(c.kv.global, c.kv.swa), Blocks: c.kv.blocks, BlockTokens: l.block,
		BlockBytes: c.kv.globalBlock, BytesPerToken: s.fullPerToken, Reserve: satAdd(c.kv.global, c.kv.swa)}
	if profileFor(in).cells {
		k.BlockTokens, k.BlockBytes = 1, 0
	}
	if len(s.sliding) > 0 && c.kv.swa > 0 {
		var per Bytes
		for _, w := range s.sliding {
			per = satAdd(per, w.perToken)
		}
		k.SWA = &SWAPlan{Blocks: c.kv.swaBlocks, BlocksPerSeq: c.kv.swaPerSeq, Window: s.maxWindow, Bytes: c.kv.swa, BytesPerToken: per}
	}
	return k
}
