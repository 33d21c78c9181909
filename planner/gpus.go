package planner

// This file answers the question people bring to a memory calculator: not
// whether a model fits one card, but which cards serve it and how many of
// each. Every calibration gets the fewest-GPUs search (layout_levers.go)
// with the layout people deploy (tensor parallel within a node, pipeline
// stages past it), then one report of that layout for what it holds and
// the command that starts it.

import "sort"

// GPUFit is one calibration's answer to an input: how many of its GPUs
// serve it, in which layout, and what they hold.
type GPUFit struct {
	Calibration string `json:"calibration"` // the calibration's id
	GPU         string `json:"gpu"`
	// Label is the calibration's source, as the GPU picker labels it:
	// CalibrationMeasured, CalibrationCommunity or CalibrationEstimated.
	Label       string `json:"label"`
	DeviceTotal Bytes  `json:"device_total_bytes"` // one GPU's
	// GPUs is the fewest GPUs of this calibration that serve the input, 1
	// when one does; 0 when no layout within the search does.
	GPUs     int      `json:"gpus"`
	Parallel Parallel `json:"parallel"`
	// Headroom is what the binding rank has to spare (its budget less its
	// total), Budget that rank's budget.
	Headroom Bytes `json:"headroom_bytes"`
	Budget   Bytes `json:"budget_bytes"`
	// PoolTakesRest reports that the engine's KV pool takes what the
	// budget leaves (vLLM, SGLang; Plan.PoolTakesRest): Headroom is then
	// 0 by construction, and KVTokens, the pool's tokens, are what the
	// rank has to spare. The table shows "—" for its headroom.
	PoolTakesRest bool `json:"pool_takes_rest,omitempty"`
	// KVTokens is the tokens the binding rank's KV pool holds, and
	// Concurrency the sequences of max_seq_len tokens the layout serves at
	// once (Capacity.MaxSeqsAtMaxLen).
	KVTokens    int64 `json:"kv_tokens"`
	Concurrency int   `json:"max_seqs_at_max_len"`
	// Launch is the engine's command line for the layout; empty for the
	// seed's engine, which has none.
	Launch string `json:"launch,omitempty"`
	// TooSmall reports that not even one layer fits on one of these GPUs
	// (tooSmall), so no number of them serves the input; a card that is not
	// too small but that no layout within the search serves has GPUs 0 too.
	TooSmall bool `json:"too_small,omitempty"`
}

// Fits reports whether some number of these GPUs serves the input.
func (f *GPUFit) Fits() bool { return f.GPUs > 0 }

// GPUs answers, for every calibration in cals, how many of its GPUs serve
// in's model at in's limits under in's engine, with one replica: one GPU
// when one holds it, else the fewest GPUs in a tensor × pipeline layout of
// at most eight tensor-parallel GPUs (a node), the largest such size that
// the model's shape divides and the rest in pipeline stages. Each card plans at
// its own device total: in's budget, layout and per-rank calibrations are
// not used. The fits come fewest GPUs first, then most headroom, then most
// KV tokens, and the cards no layout serves last. An input that cannot be
// planned on a calibration is an *InputError, as Validate reports it.
func GPUs(in Input, cals []Calibration) ([]GPUFit, error) {
	in.Budget, in.Parallel, in.Rank = 0, Parallel{}, nil
	fits := make([]GPUFit, len(cals))
	for i := range cals {
		t := in
		t.Calibration = cals[i]
		if err := Validate(&t); err != nil {
			return nil, err
		}
		normalizeEngine(&t)
		gpuFit(&t, &fits[i])
	}
	sort.SliceStable(fits, func(i, j int) bool { return fitBefore(&fits[i], &fits[j]) })
	return fits, nil
}

// fitBefore reports whether a comes before b: fewer GPUs, then more
// headroom, then more KV tokens (under vLLM and SGLang the KV cache takes
// what the memory fraction leaves, so every fit has no headroom:
// PoolTakesRest); no fit last.
func fitBefore(a, b *GPUFit) bool {
	if a.Fits() != b.Fits() {
		return a.Fits()
	}
	if a.GPUs != b.GPUs {
		return a.GPUs < b.GPUs
	}
	if a.Headroom != b.Headroom {
		return a.Headroom > b.Headroom
	}
	return a.KVTokens > b.KVTokens // a pool engine's KV cache takes the headroom
}

// gpuFit fills f for a validated, normalized one-GPU input.
func gpuFit(in *Input, f *GPUFit) {
	c := &in.Calibration
	f.Calibration, f.GPU, f.Label, f.DeviceTotal = c.ID, c.GPU, c.Kind(), c.DeviceTotal
	if f.TooSmall = tooSmall(in); f.TooSmall {
		return // no search: no layout can fit
	}
	work := 0
	n := minGPUsBy(in, layoutTensorFirst, &work, nil)
	if n.GPUs == 0 {
		return
	}
	t := *in
	t.Parallel = n.Parallel
	var p Plan
	reportValid(&t, depthRow, nil, &p)
	b := &p
	if p.Layout != nil {
		r, _ := p.RankPlanOf(p.Layout.Binding)
		b = &r
	}
	f.GPUs, f.Parallel, f.Headroom, f.Budget = n.GPUs, n.Parallel, b.Headroom, b.Budget
	f.PoolTakesRest = b.PoolTakesRest()
	f.KVTokens = b.KV.Blocks * int64(b.KV.BlockTokens)
	if p.Capacity != nil {
		f.Concurrency = p.Capacity.MaxSeqsAtMaxLen
	}
	if b.Engine != nil {
		f.Launch = b.Engine.Launch
	}
}

// tooSmall reports whether not even one layer fits on one of in's GPUs,
// so that no layout GPUs tries can: whether the GPU's room past the
// driver's charges is below one layer's share of the weights, or whether a
// middle stage of a stage-per-layer layout is over its budget at every
// tensor-parallel size of at most nodeGPUs that the model's shape divides
// (at each size such a stage is the least a layout puts on a GPU; across
// sizes the communication buffers grow as the shares shrink). It answers
// false where it cannot tell: llama.cpp's splits, a model of fewer than
// three layers, and an engine whose budget on a GPU depends on the layout
// (SGLang's reserve grows with tp and pp), where a deeper layout can hold
// less; the fewest-GPUs search then decides.
func tooSmall(in *Input) bool {
	if roomPerGPU(in) < layerShare(&in.Model) {
		return true
	}
	n := in.Model.NumLayers()
	if n < 3 || n*nodeGPUs > maxWorld {
		return false
	}
	tried := false
	for tp := 1; tp <= nodeGPUs; tp++ {
		fits, ok := layerFits(in, tp, n)
		if ok && fits {
			return false
		}
		tried = tried || ok
	}
	return tried
}

// layerFits reports whether a middle stage of in's model in n stages of
// one layer, split tp ways, fits its GPU; ok is false when that layout is
// not valid or its answer cannot stand for the others (see tooSmall).
func layerFits(in *Input, tp, n int) (fits, ok bool) {
	t := *in
	p := &t.Parallel
	*p = Parallel{Tensor: tp, Pipeline: n}
	if validateParallel(&t) != nil {
		return false, false
	}
	if llamaTensor(&t) || p.llamaSplit() {
		return true, true // cannot tell: as if it fits
	}
	var r Input
	rankInput(&t, p.coord(tp*(n/2)), &t.Calibration, &r)
	if budgetOf(&r) != budgetOf(in) {
		return true, true
	}
	return evalTotal(&r) <= budgetOf(&r), true
}

// roomPerGPU is what one GPU of in's calibration leaves its engine past
// the driver's charges.
func roomPerGPU(in *Input) Bytes {
	e := in.Features.EagerModuleLoading
	return budgetOf(in) - satAdd(in.Calibration.context(e), in.Calibration.library(e))
}

// layerShare is one layer's share of m's weights: the least a pipeline
// stage holds.
func layerShare(m *Model) Bytes {
	return Bytes(ceilDiv(int64(m.Weights.Bytes), int64(max(m.NumLayers(), 1))))
}
