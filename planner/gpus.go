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
	// KVTokens is the tokens the binding rank's KV pool holds, and
	// Concurrency the sequences of max_seq_len tokens the layout serves at
	// once (Capacity.MaxSeqsAtMaxLen).
	KVTokens    int64 `json:"kv_tokens"`
	Concurrency int   `json:"max_seqs_at_max_len"`
	// Launch is the engine's command line for the layout; empty for the
	// seed's engine, which has none.
	Launch string `json:"launch,omitempty"`
	// TooSmall reports that not even one layer's share of the weights fits
	// beside the driver's charges on one of these GPUs, so no number of
	// them serves the model.
	TooSmall bool `json:"too_small,omitempty"`
}

// Fits reports whether some number of these GPUs serves the input.
func (f *GPUFit) Fits() bool { return f.GPUs > 0 }

// GPUs answers, for every calibration in cals, how many of its GPUs serve
// in's model at in's limits under in's engine, with one replica: one GPU
// when one holds it, else the fewest GPUs in any tensor × pipeline layout,
// the largest tensor-parallel size of at most eight (a node) that the
// model's shape divides and the rest in pipeline stages. Each card plans at
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
// what the memory fraction leaves, so every fit has the same headroom);
// no fit last.
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
	work := 0
	n := minGPUsBy(in, layoutTensorFirst, &work, nil)
	if n.GPUs == 0 {
		f.TooSmall = roomPerGPU(in) < layerShare(&in.Model)
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
	f.KVTokens = b.KV.Blocks * int64(b.KV.BlockTokens)
	if p.Capacity != nil {
		f.Concurrency = p.Capacity.MaxSeqsAtMaxLen
	}
	if b.Engine != nil {
		f.Launch = b.Engine.Launch
	}
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
