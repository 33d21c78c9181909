package planner

// This file holds the per-token and per-sequence geometry of the KV pools,
// computed once per model and KV format so that the inverse solvers can
// re-plan many limits without walking the layers again.

// shape is a model's geometry reduced to what the charges need.
type shape struct {
	dtype        KVDtype
	fullPerToken Bytes    // full-attention and MLA layers, bytes per token
	sliding      []window // sliding layers grouped by window
	maxWindow    int      // the largest sliding window
	ringPerToken Bytes    // FP16 K and V of every attention layer, per token
	statePerSeq  Bytes    // recurrent state of every recurrent layer, per sequence
	attnLayers   int      // layers that keep KV
	maxAttnRow   int64    // widest Q+K+V+O row of one layer, in elements
	maxSSMRow    int64    // widest recurrent in-projection row, in elements
	hasMoE       bool
	// caches memoizes cacheBytes by policy, the index in WeightCaches:
	// the lever search's trials change the policy, never the matrices.
	caches     [4]Bytes
	haveCaches [4]bool
}

// weightCache returns cacheBytes(m, p), summing m's matrices once per policy.
func (s *shape) weightCache(m *Model, p WeightCache) Bytes {
	i := 0
	for i < len(WeightCaches)-1 && WeightCaches[i] != p {
		i++
	}
	if !s.haveCaches[i] {
		s.caches[i], s.haveCaches[i] = cacheBytes(m, p), true
	}
	return s.caches[i]
}

// shapes holds a model's shape in each KV format, each built on first use.
// A failure report's trials change limits and features, never the model, so
// a lever search builds at most one shape per format rather than one per
// trial.
type shapes struct {
	m    *Model
	of   [numKVDtypes]shape
	have [numKVDtypes]bool
}

// numKVDtypes is the number of KV formats, len(KVDtypes).
const numKVDtypes = 6

// get returns m's shape in format d.
func (c *shapes) get(d KVDtype) *shape {
	i := kvDtypeIndex(d.normalize())
	if !c.have[i] {
		c.of[i], c.have[i] = newShape(c.m, d), true
	}
	return &c.of[i]
}

func kvDtypeIndex(d KVDtype) int {
	for i, k := range KVDtypes {
		if k == d {
			return i
		}
	}
	panic("planner: KV dtype " + string(d) + " passed validation but is not in KVDtypes")
}

// window is the sliding layers that share one window size.
type window struct {
	tokens   int
	perToken Bytes
}

// newShape reduces m to its geometry in KV format d. It returns a value,
// which a caller keeps on its stack: every plan, and every rung a lever
// search tries, needs one.
func newShape(m *Model, d KVDtype) shape {
	s := shape{dtype: d.normalize(), hasMoE: m.MoE != nil && m.MoE.Experts > 0}
	for i := range m.Layers {
		s.addGroup(m, &m.Layers[i])
	}
	return s
}

func (s *shape) addGroup(m *Model, g *LayerGroup) {
	n := int64(g.Count)
	l := &g.Layer
	switch l.Kind {
	case LayerFull, LayerSliding:
		tok := satMul(int64(l.KVHeads), int64(s.dtype.RowBytes(l.KeyDim)+s.dtype.RowBytes(l.ValueDim)))
		s.ringPerToken = satAdd(s.ringPerToken, satMul3(n, int64(l.KVHeads), int64(l.KeyDim+l.ValueDim)*2))
		s.attnLayers += g.Count
		s.noteAttnRow(m, l)
		if l.Kind == LayerSliding {
			s.addWindow(l.Window, satMul(n, int64(tok)))
			return
		}
		s.fullPerToken = satAdd(s.fullPerToken, satMul(n, int64(tok)))
	case LayerMLA:
		s.fullPerToken = satAdd(s.fullPerToken, satMul(n, int64(s.dtype.RowBytes(l.LatentDim))))
		s.ringPerToken = satAdd(s.ringPerToken, satMul(n, int64(l.LatentDim)*2))
		s.attnLayers += g.Count
		s.noteAttnRow(m, l)
	case LayerRecurrent:
		s.statePerSeq = satAdd(s.statePerSeq, satMul(n, int64(recurrentBytes(l.Recurrent))))
		if r := l.Recurrent; r != nil {
			s.maxSSMRow = max(s.maxSSMRow, int64(r.ConvChannels)+int64(r.Heads)*int64(r.HeadDim))
		}
	}
}

// addWindow adds perToken bytes to the sliding layers of window tokens. Its
// scan is bounded: Validate admits at most MaxWindows distinct windows, so a
// shape costs at most MaxWindows steps per layer group.
func (s *shape) addWindow(tokens int, perToken Bytes) {
	s.maxWindow = max(s.maxWindow, tokens)
	for i := range s.sliding {
		if s.sliding[i].tokens == tokens {
			s.sliding[i].perToken = satAdd(s.sliding[i].perToken, perToken)
			return
		}
	}
	s.sliding = append(s.sliding, window{tokens, perToken})
}

// noteAttnRow records the widest attention activation row: Q, K, V and the
// attention output for one token of layer l.
func (s *shape) noteAttnRow(m *Model, l *Layer) {
	q := int64(m.QueryHeads)
	row := q*int64(l.KeyDim) + int64(l.KVHeads)*int64(l.KeyDim+l.ValueDim) + q*int64(l.ValueDim)
	if l.Kind == LayerMLA && m.MLA != nil {
		row = q*int64(m.MLA.NopeDim+m.MLA.RopeDim) + int64(l.LatentDim) + q*int64(m.MLA.ValueDim)
	}
	s.maxAttnRow = max(s.maxAttnRow, row)
}

// recurrentBytes is one sequence's state in one recurrent layer:
// conv_ch·(k−1)·4 + heads·head_dim·state·state_bytes (seed A1.7).
func recurrentBytes(r *Recurrent) Bytes {
	if r == nil {
		return 0
	}
	conv := satMul3(int64(r.ConvChannels), int64(max(r.ConvKernel-1, 0)), 4)
	state := satMul(int64(satMul3(int64(r.Heads), int64(r.HeadDim), int64(r.StateDim))), int64(r.StateBytes))
	return satAdd(conv, state)
}

// swaBlocksPerSeq is how many blocks of t tokens one sequence of n tokens
// holds in a sliding layer of window w: the window rounded up to blocks, plus
// the block the window straddles, never more than the sequence needs.
func swaBlocksPerSeq(w, n, t int) int64 {
	return min(ceilDiv(int64(w), int64(t))+1, ceilDiv(int64(n), int64(t)))
}

// kvCharge is the KV pools' share of a plan.
type kvCharge struct {
	blocks, swaBlocks, swaPerSeq int64
	global, swa                  Bytes
	globalBlock                  Bytes
	window                       int
}

// kvFor sizes the KV pools for batch sequences of n tokens in blocks of t.
func (s *shape) kvFor(batch, n, t int) kvCharge {
	c := kvCharge{window: s.maxWindow}
	perSeq := ceilDiv(int64(n), int64(t))
	c.blocks = int64(batch) * perSeq
	c.globalBlock = satMul(int64(t), int64(s.fullPerToken))
	if s.fullPerToken > 0 {
		c.global = satMul(c.blocks, int64(c.globalBlock))
	} else {
		c.blocks = 0
	}
	for _, w := range s.sliding {
		bps := swaBlocksPerSeq(w.tokens, n, t)
		c.swaPerSeq = max(c.swaPerSeq, bps)
		c.swa = satAdd(c.swa, satMul3(int64(batch)*bps, int64(t), int64(w.perToken)))
	}
	c.swaBlocks = int64(batch) * c.swaPerSeq
	return c
}
