package planner

import "strconv"

// describe names charge k and states how its bytes were computed.
func describe(k key, in *Input, c *charges, l limits) (name, detail string) {
	if k == keyComm { // every profile's: a layout's charge
		return "communication buffers (NCCL, all-reduce)", c.commDetail(in)
	}
	if p := profileFor(in); p != nil {
		return p.describe(k, in, c, l)
	}
	m := &in.Model
	switch k {
	case keyContext:
		return "CUDA context + driver", c.join(in.Calibration.Kind(), ": ", in.Calibration.ID)
	case keySidecar:
		return "sidecar agent CUDA context", "a second process's context costs about as much as the first"
	case keyLibrary:
		kind := in.Calibration.Kind()
		return c.join("library reserve (", kind, ")"), c.join("cuBLAS/cuBLASLt/CUTLASS first-dispatch claim, ", kind, ": ", in.Calibration.ID)
	case keyCublas:
		return "cuBLASLt workspace", "seed A5.3: one per process"
	case keyBench:
		return "GEMM algo-bench scratch", "seed A1.7: fixed"
	case keyGrouped:
		return "grouped-GEMM scheduler state", "seed B73: 152320 B measured, 1 MiB reserved"
	case keyAttnScores:
		return "attention score buffer", "seed A1.7: attention.attn_scores_mib"
	case keyExecPersistent:
		return "executor persistent workspace", c.linef("%d tok × d_model %d × 2 B × 3 + %d seqs × vocab %d × 4 B",
			int64(l.prefill), int64(m.HiddenSize), int64(l.batch), int64(m.VocabSize))
	case keyExecShared:
		return "executor shared workspace", c.linef("widest layer activations (attention, FFN, MoE, SSM) at %d tokens", int64(l.prefill))
	case keyExecDecode:
		return "executor decode workspace", c.linef("widest layer activations at %d rows", int64(l.batch))
	case keyMoE:
		return "MoE dequant + expert scratch", "largest expert f16 + prefill × top-k × expert FFN × 2 B"
	case keyMLA:
		return "MLA scratch", "prefill × {kv_a, latent, k_rope, kv_b} × 2 B"
	case keySpec:
		return c.linef("speculative-decode staging (k=%d)", int64(in.Features.SpecDecodeK)),
			"planned for the maximum k: seqs × (k+1) × (vocab × 4 B + d_model × 4 B)"
	case keyGraphs:
		name := c.linef("CUDA-graph pool (%d graphs)", c.graphs)
		if in.Calibration.GraphExec == 0 {
			return name, c.linefs("%d graphs, their size not measured in %s: not charged", in.Calibration.ID, c.graphs)
		}
		return name, c.linefs("%d graphs × %B each, measured: %s", in.Calibration.ID, c.graphs, int64(in.Calibration.GraphExec))
	case keyVisionStaging:
		return "vision pixel + embedding buffers", "image² × 3 × 2 B + image tokens × d_model × 2 B"
	case keyMeasuredT2:
		return "engine-persistent", "high-water reported by a previous run"
	}
	return describeModel(k, in, c, l)
}

func describeModel(k key, in *Input, c *charges, l limits) (name, detail string) {
	m := &in.Model
	switch k {
	case keyWeights:
		return "model weights", c.weightsDetail(m)
	case keyWeightCache:
		return cacheName(in.Features.WeightCache), c.linef("%d GEMM matrices, seed A1.7 formulas", int64(matrixCount(m)))
	case keyVisionTower:
		return "vision tower", "mmproj tensors"
	case keyRing:
		return c.linef("residual FP16 ring (%d tok)", int64(in.Features.ResidualRing)), "seqs × ring × Σ layers K+V × 2 B"
	case keySSM:
		return "SSM / recurrent state", c.linef("%d seqs × per-sequence state", int64(l.batch))
	case keySnapshots:
		return c.linef("recurrent snapshots (%d)", int64(in.Features.RecurrentSnapshots)), "entries × per-sequence state"
	case keySWA:
		return c.linef("SWA KV pool (window %d)", int64(c.kv.window)), c.linef("%d blocks, own id space", c.kv.swaBlocks)
	case keyKV:
		return c.linef("KV pool (batch %d x %d tok)", int64(l.batch), int64(l.seqLen)),
			c.linefs("%d blocks × %B (%d tok × %B/token), %s", string(in.Limits.KVDtype.normalize()), c.kv.blocks,
				int64(c.kv.globalBlock), int64(l.block), int64(c.kv.globalBlock)/int64(l.block))
	case keyScratch:
		if in.Measured.Scratch > 0 {
			return "executor scratch (high-water)", "high-water reported by a previous run"
		}
		return "forward scratch (high-water)", "block tables, step metadata and sampling logits"
	}
	return "", ""
}

// weightsDetail is "dtype: class bytes, class bytes, …", built in a
// buffer on the stack (on the heap when a model names many classes) and
// written into c's text: every rank of a layout plan states it.
func (c *charges) weightsDetail(m *Model) string {
	w := &m.Weights
	if len(w.Classes) == 0 {
		return w.Dtype
	}
	var buf [256]byte
	b := append(buf[:0], w.Dtype...)
	for i := range w.Classes {
		switch {
		case i > 0:
			b = append(b, ", "...)
		case len(b) > 0:
			b = append(b, ": "...)
		}
		b = append(b, w.Classes[i].Class...)
		b = append(b, ' ')
		b = w.Classes[i].Bytes.appendTo(b)
	}
	return c.put(b)
}

func cacheName(p WeightCache) string {
	switch p.normalize() {
	case WeightCacheNVFP4:
		return "NVFP4 decode cache + SF slab"
	case WeightCacheFP8:
		return "FP8 weight cache"
	}
	return "FP16 weight cache"
}

func matrixCount(m *Model) int {
	n := 0
	for _, x := range m.Weights.Matrices {
		n += x.Count
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }
