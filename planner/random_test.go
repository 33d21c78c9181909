package planner

import (
	"math/rand/v2"
)

// randomInput draws an input from a wide but plannable space: every layer
// kind, every KV format, features on and off, budgets from 1 GiB to 256 GiB.
func randomInput(r *rand.Rand) Input {
	in := Input{
		Model:       randomModel(r),
		Limits:      randomLimits(r),
		Budget:      Bytes(r.Int64N(int64(256*GiB))) + GiB,
		Calibration: randomCalibration(r),
	}
	in.Features = Features{
		WeightCache:        WeightCaches[r.IntN(len(WeightCaches))],
		Vision:             r.IntN(3) == 0,
		SpecDecodeK:        r.IntN(3) * r.IntN(8),
		CUDAGraphs:         r.IntN(2) == 0,
		ResidualRing:       r.IntN(2) * r.IntN(256),
		RecurrentSnapshots: r.IntN(2) * r.IntN(64),
		EagerModuleLoading: r.IntN(4) == 0,
		SidecarAgent:       r.IntN(5) == 0,
	}
	if r.IntN(6) == 0 {
		in.Measured = Measured{EnginePersistent: Bytes(r.Int64N(int64(GiB))), Scratch: Bytes(r.Int64N(int64(GiB)))}
	}
	return in
}

func randomLimits(r *rand.Rand) Limits {
	return Limits{
		MaxBatch:         r.IntN(9) * (1 + r.IntN(32)),
		MaxSeqLen:        1 + r.IntN(1<<(4+r.IntN(16))),
		MaxPrefillTokens: r.IntN(2) * r.IntN(8192),
		KVDtype:          KVDtypes[r.IntN(len(KVDtypes))],
		BlockTokens:      []int{0, 1, 8, 16, 32, 64, 256}[r.IntN(7)],
	}
}

func randomCalibration(r *rand.Rand) Calibration {
	return Calibration{
		Schema: CalibrationSchema, ID: "random", DeviceTotal: Bytes(r.Int64N(int64(192*GiB))) + GiB,
		Context: Bytes(r.Int64N(int64(2 * GiB))), LibraryReserve: Bytes(r.Int64N(int64(5 * GiB))),
		ContextEager: Bytes(r.Int64N(int64(2 * GiB))), GraphExec: Bytes(r.Int64N(int64(4 * MiB))),
		VMM: VMM{Supported: true, Granularity: Bytes(1) << (12 + r.IntN(10))},
	}
}

func randomModel(r *rand.Rand) Model {
	m := Model{ID: "random", HiddenSize: 64 * (1 + r.IntN(128)), VocabSize: 1000 + r.IntN(256000),
		IntermediateSize: 128 * r.IntN(256), QueryHeads: 1 + r.IntN(128)}
	for g := 0; g < 1+r.IntN(4); g++ {
		m.Layers = append(m.Layers, randomGroup(r))
	}
	m.Weights = Weights{Bytes: Bytes(r.Int64N(int64(128 * GiB))), Source: SourceExact,
		Matrices: []Matrix{{Name: "w", N: 1 + r.IntN(16384), K: 1 + r.IntN(16384), Count: 1 + r.IntN(512), Dtype: "q8_0"}}}
	if r.IntN(3) == 0 {
		m.MoE = &MoE{Experts: 8 << r.IntN(5), ExpertsUsed: 1 + r.IntN(8), IntermediateSize: 128 * (1 + r.IntN(32))}
	}
	if r.IntN(4) == 0 {
		m.MLA = &MLA{KVLoraRank: 512, RopeDim: 64, NopeDim: 128, ValueDim: 128}
	}
	if r.IntN(3) == 0 {
		m.Vision = &Vision{Bytes: Bytes(r.Int64N(int64(2 * GiB))), Source: SourceExact, ImageSize: 896, ImageTokens: 256}
	}
	return m
}

func randomGroup(r *rand.Rand) LayerGroup {
	g := LayerGroup{Count: 1 + r.IntN(64)}
	dims := []int{64, 80, 96, 128, 192, 256, 512}
	switch r.IntN(5) {
	case 0, 1:
		g.Kind = LayerFull
	case 2:
		g.Kind, g.Window = LayerSliding, 1+r.IntN(8192)
	case 3:
		g.Kind, g.LatentDim = LayerMLA, 64+r.IntN(1024)
		return g
	default:
		g.Kind = LayerRecurrent
		g.Recurrent = &Recurrent{ConvChannels: r.IntN(16384), ConvKernel: r.IntN(5), Heads: 1 + r.IntN(64),
			HeadDim: 64, StateDim: 1 + r.IntN(256), StateBytes: 4}
		return g
	}
	g.KVHeads, g.KeyDim, g.ValueDim = 1+r.IntN(64), dims[r.IntN(len(dims))], dims[r.IntN(len(dims))]
	return g
}
