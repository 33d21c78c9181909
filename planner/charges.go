package planner

// This file is the arithmetic core: every charge of a plan as a number, in
// the seed's tier order, with no strings and no allocation, so the levers
// and inverse solvers can re-plan thousands of limits cheaply. items.go
// turns the numbers into named line items.

import "strings"

// key identifies one charge. The order is the allocation order of A4.2.
type key int

const (
	keyContext key = iota
	keySidecar
	keyLibrary
	keyComm
	keyCublas
	keyBench
	keyGrouped
	keyAttnScores
	keyExecPersistent
	keyExecShared
	keyExecDecode
	keyMoE
	keyMLA
	keySpec
	keyGraphs
	keyEngineCompute // llama.cpp's compute buffer
	keyCUDAPool      // llama.cpp's CUDA pool at the first decode
	keyActivation    // vLLM's profiled activation peak
	keyNonTorch      // vLLM's memory outside torch
	keySamplerState  // vLLM Model Runner V2's per-request sampler state
	keyGraphEstimate // vLLM's CUDA-graph estimate
	keyVisionStaging
	keyMeasuredT2
	keyWeights
	keyWeightCache
	keyVisionTower
	keyLoadSlack // SGLang's load beyond the tensors
	keyRing
	keySSM
	keySnapshots
	keySWA
	keyKV
	keyScratch
	numKeys
)

// Seed defaults for Engine and Limits.
const (
	defaultCublas       = 64 * MiB
	defaultBench        = 32 * MiB
	defaultAttnScores   = 384 * MiB
	defaultGrouped      = 1 * MiB
	defaultDecodeGraphs = 64
	defaultCommitChunk  = 64 * MiB
	defaultPrefill      = 512
	defaultBlockTokens  = 16
	specDraftBuckets    = 5    // seed A5.2: 3–5 draft-length buckets
	specCtxFloor        = 4096 // seed A5.2: power-of-two context tiers from 4096
)

// charges is a plan as numbers.
type charges struct {
	amount  [numKeys]Bytes
	present [numKeys]bool
	kv      kvCharge
	pool    poolGeometry // a pool engine's KV layout (setPool)
	graphs  int64
	total   Bytes
	text    strings.Builder // the items' names and details (line.go)
}

func (c *charges) set(k key, b Bytes) {
	c.amount[k], c.present[k] = b, true
}

// limits is Limits with defaults resolved.
type limits struct {
	batch, seqLen, prefill, block int
}

func resolve(l *Limits) limits {
	r := limits{batch: l.MaxBatch, seqLen: l.MaxSeqLen, prefill: l.MaxPrefillTokens, block: l.BlockTokens}
	if r.prefill == 0 {
		r.prefill = defaultPrefill
	}
	r.prefill = min(r.prefill, r.seqLen)
	if r.block == 0 {
		r.block = defaultBlockTokens
	}
	return r
}

// compute charges in with shape s at limits l. The seed's engine charges
// into a value on the stack; another profile's charge goes through an
// interface, which moves its charges to the heap, so only it pays for that
// (one allocation per trial plan of a failure report otherwise).
func compute(in *Input, s *shape, l limits) charges {
	if p := profileFor(in); p != nil {
		c := new(charges)
		c.commCharge(in)
		p.charge(in, s, l, c)
		c.sum()
		return *c
	}
	var c charges
	c.commCharge(in)
	c.driverCharges(in)
	c.engineCharges(in, s, l)
	c.modelCharges(in, s)
	c.poolCharges(in, s, l)
	c.scratchCharge(in, s, l)
	c.sum()
	return c
}

// sum totals the charges.
func (c *charges) sum() {
	for _, b := range c.amount {
		c.total = satAdd(c.total, b)
	}
}

func (c *charges) driverCharges(in *Input) {
	eager := in.Features.EagerModuleLoading
	c.set(keyContext, in.Calibration.context(eager))
	if in.Features.SidecarAgent {
		c.set(keySidecar, in.Calibration.context(eager))
	}
	c.set(keyLibrary, in.Calibration.library(eager))
}

func (c *charges) modelCharges(in *Input, s *shape) {
	m := &in.Model
	c.set(keyWeights, m.Weights.Bytes)
	if p := in.Features.WeightCache.normalize(); p != WeightCacheNone {
		c.set(keyWeightCache, s.weightCache(m, p))
	}
	if in.Features.Vision && m.Vision != nil {
		c.set(keyVisionTower, m.Vision.Bytes)
	}
}

func (c *charges) poolCharges(in *Input, s *shape, l limits) {
	b := int64(l.batch)
	if n := in.Features.ResidualRing; n > 0 {
		c.set(keyRing, satMul3(b, int64(n), int64(s.ringPerToken)))
	}
	if s.statePerSeq > 0 {
		c.set(keySSM, satMul(b, int64(s.statePerSeq)))
		if n := in.Features.RecurrentSnapshots; n > 0 {
			c.set(keySnapshots, satMul(int64(n), int64(s.statePerSeq)))
		}
	}
	c.kv = s.kvFor(l.batch, l.seqLen, l.block)
	g := in.Calibration.granularity()
	if len(s.sliding) > 0 {
		c.set(keySWA, roundUp(c.kv.swa, g))
	}
	c.set(keyKV, roundUp(c.kv.global, g))
}
