package planner

// This file sizes the engine-persistent tenants (T2) and the forward scratch
// (T4) from the seed's formulas (A1.7, A5.2–A5.5). Activations are 2 bytes
// (f16/bf16), logits 4 bytes (f32).

func (c *charges) engineCharges(in *Input, s *shape, l limits) {
	if m := in.Measured.EnginePersistent; m > 0 {
		c.set(keyMeasuredT2, m)
		c.graphCharge(in, l)
		return
	}
	e, m := &in.Engine, &in.Model
	t, b := int64(l.prefill), int64(l.batch)
	h, v := int64(m.HiddenSize), int64(m.VocabSize)
	c.set(keyCublas, orDefault(e.CublasWorkspace, defaultCublas))
	c.set(keyBench, orDefault(e.BenchScratch, defaultBench))
	if s.hasMoE {
		c.set(keyGrouped, orDefault(e.GroupedGEMM, defaultGrouped))
	}
	c.set(keyAttnScores, orDefault(e.AttentionScores, defaultAttnScores))
	// max_tokens·d_model·2 B·3 + logits for one row per sequence.
	c.set(keyExecPersistent, satAdd(satMul3(t, h, 6), satMul3(b, v, 4)))
	c.set(keyExecShared, forwardBytes(m, s, t))
	c.set(keyExecDecode, forwardBytes(m, s, b))
	if s.hasMoE {
		c.set(keyMoE, moeScratch(m, t))
	}
	if m.MLA != nil {
		c.set(keyMLA, mlaScratch(m, t))
	}
	if k := int64(in.Features.SpecDecodeK); k > 0 {
		c.set(keySpec, satMul3(b, k+1, int64(satAdd(satMul(v, 4), satMul(h, 4)))))
	}
	c.graphCharge(in, l)
	if in.Features.Vision && m.Vision != nil {
		c.set(keyVisionStaging, visionStaging(m))
	}
}

// graphCharge declares the CUDA-graph pool (seed A5.2): up to DecodeGraphs
// decode graphs keyed by batch size, one prefill and one conditional-loop
// graph, and, with speculative decoding, draft buckets × context tiers ×
// (max_batch + 1) speculative graphs — a bound the plan now states.
func (c *charges) graphCharge(in *Input, l limits) {
	if !in.Features.CUDAGraphs {
		return
	}
	n := int64(min(orDefaultInt(in.Engine.DecodeGraphs, defaultDecodeGraphs), l.batch)) + 2
	if k := in.Features.SpecDecodeK; k > 0 {
		n += int64(min(k, specDraftBuckets)) * ctxTiers(l.seqLen) * int64(l.batch+1)
	}
	c.graphs = n
	c.set(keyGraphs, satMul(n, int64(in.Calibration.GraphExec)))
}

// ctxTiers counts the power-of-two context tiers from 4096 up to n.
func ctxTiers(n int) int64 {
	t := int64(1)
	for c := specCtxFloor; c < n; c *= 2 {
		t++
	}
	return t
}

// forwardBytes is one forward pass's shared workspace for rows tokens: the
// widest of the attention, FFN, MoE and SSM activations, plus the residual
// stream in and out.
func forwardBytes(m *Model, s *shape, rows int64) Bytes {
	width := max(s.maxAttnRow, 3*int64(m.IntermediateSize), s.maxSSMRow)
	if e := m.MoE; e != nil {
		width = max(width, int64(e.ExpertsUsed+e.SharedExperts)*3*int64(e.IntermediateSize)+int64(e.Experts)*2)
	}
	return satMul3(rows, satAdd(Bytes(width), Bytes(2*m.HiddenSize)).int64(), 2)
}

// moeScratch is the MoE dequant staging of the largest expert plus the
// expanded activations: max_expert_raw + max_tokens·top_k·d_ff·2 B.
func moeScratch(m *Model, t int64) Bytes {
	e := m.MoE
	raw := satMul3(3, int64(e.IntermediateSize), int64(m.HiddenSize)*2)
	return satAdd(raw, satMul3(t*int64(e.ExpertsUsed), int64(e.IntermediateSize), 2))
}

// mlaScratch is max_tokens × {kv_a, latent, k_rope, kv_b} × 2 B.
func mlaScratch(m *Model, t int64) Bytes {
	a := m.MLA
	kvA := int64(a.KVLoraRank + a.RopeDim)
	kvB := int64(m.QueryHeads) * int64(a.NopeDim+a.ValueDim)
	return satMul3(t, kvA+int64(a.KVLoraRank)+int64(a.RopeDim)+kvB, 2)
}

// scratchCharge is the forward-scratch high-water (T4): what the seed's
// step 5 moved from per-request driver calls onto the stack — block tables,
// token ids, positions, slot mappings, context lengths — and the sampling
// scratch of one row of logits per sequence.
func (c *charges) scratchCharge(in *Input, s *shape, l limits) {
	if m := in.Measured.Scratch; m > 0 {
		c.set(keyScratch, m)
		return
	}
	m := &in.Model
	t, b := int64(l.prefill), int64(l.batch)
	tables := satMul(b*(ceilDiv(int64(l.seqLen), int64(l.block))+c.kv.swaPerSeq), 4)
	meta := satAdd(tables, satMul(t, 16), satMul3(b, int64(m.VocabSize), 4))
	c.set(keyScratch, meta)
}

func (b Bytes) int64() int64 { return int64(b) }

func orDefault(b, d Bytes) Bytes {
	if b > 0 {
		return b
	}
	return d
}

func orDefaultInt(n, d int) int {
	if n > 0 {
		return n
	}
	return d
}
