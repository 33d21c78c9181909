package planner

// This file computes one rank's share of a model: the model shape that rank
// holds, which the single-GPU planner then plans. The rules are the
// engines' (notes/engines.md, Multi-GPU):
//
//   - Tensor parallelism splits attention and MLP weights by their role:
//     column-parallel projections (Q, K, V, gate, up) by output rows,
//     row-parallel ones (attention output, down) by input columns
//     (vllm/model_executor/layers/linear.py); either way a rank holds 1/tp.
//     KV projections hold max(1, kv_heads / tp) heads: past tp = kv_heads a
//     head is replicated and the rank's KV stops shrinking (the replication
//     wall). MLA's latent projections (q_a, kv_a_mqa) are replicated and its
//     KV latent is not split (models/deepseek_v2.py).
//   - The embedding and the LM head hold the vocabulary padded to a
//     multiple of 64, divided by tp (vocab_parallel_embedding.py).
//   - Norms, routers and unclassified tensors are replicated.
//   - Experts are split by expert parallelism, E / ep per rank plus one for
//     the first E mod ep ranks (fused_moe/layer.py), and each expert's FFN
//     by the remaining tensor split.
//   - Pipeline stages take vLLM's get_pp_indices split; the embedding sits
//     on the first stage, the LM head on the last (and a tied embedding
//     there too), and each stage holds only its layers' KV.
//
// Per-layer classes are apportioned to a stage by its share of the layers:
// exact for models whose layers are alike, an even spread for models that
// mix dense and MoE layers or attention kinds (recorded in the D-table).

import "math/bits"

// rankModel is model m as rank c of layout p holds it; its MoE, if any,
// and its layer groups, weight classes and matrices, where they fit, are
// written into parts.
func rankModel(m *Model, p *Parallel, c coord, parts *rankParts) Model {
	s := newSplit(m, p, c)
	out := *m
	out.QueryHeads = m.QueryHeads / s.tp
	out.IntermediateSize = m.IntermediateSize / s.tp
	out.Layers = s.layers(m, parts.layers[:])
	out.Weights = s.weights(m, parts)
	if e := m.MoE; e != nil {
		moe := &parts.moe
		*moe = *e
		moe.IntermediateSize = e.IntermediateSize / s.moeTP
		out.MoE = moe
	}
	if !s.first {
		out.Vision = nil
	}
	return out
}

// split is what a rank holds of each dimension.
type split struct {
	tp, moeTP, pp    int
	start, end, n    int // the stage's layers [start, end) of n
	experts, local   int // the model's experts, and the rank's
	first, last      bool
	tied             bool // the LM head is the embedding
	vocab, vocabRank int
}

func newSplit(m *Model, p *Parallel, c coord) split {
	s := split{tp: p.tp(), moeTP: p.moeTP(), pp: p.pp(), n: m.NumLayers(), vocab: m.VocabSize}
	s.start, s.end = p.stageRange(s.n, c.stage)
	s.first, s.last = c.stage == 0, c.stage == p.outputStage(s.n)
	s.vocabRank = paddedVocab(m.VocabSize) / s.tp
	if e := m.MoE; e != nil && e.Experts > 0 {
		s.experts, s.local = e.Experts, localExperts(e.Experts, p.ep(), c.epRank)
	}
	s.tied = classBytes(m, "output") == 0
	return s
}

// layers slices the layer groups to the stage and splits KV heads.
func (s *split) layers(m *Model, store []LayerGroup) []LayerGroup {
	if len(m.Layers) > len(store) {
		store = make([]LayerGroup, len(m.Layers))
	}
	out := store[:0:len(m.Layers)] // no append past it writes into store
	at := 0
	for _, g := range m.Layers {
		lo, hi := max(at, s.start), min(at+g.Count, s.end)
		at += g.Count
		if lo >= hi {
			continue
		}
		g.Count = hi - lo
		g.Layer = s.layer(g.Layer)
		out = append(out, g)
	}
	return out
}

func (s *split) layer(l Layer) Layer {
	switch l.Kind {
	case LayerFull, LayerSliding:
		l.KVHeads = kvHeadsPerRank(l.KVHeads, s.tp)
	case LayerRecurrent:
		if r := l.Recurrent; r != nil {
			rr := *r
			rr.Heads, rr.ConvChannels = r.Heads/s.tp, r.ConvChannels/s.tp
			l.Recurrent = &rr
		}
	}
	return l
}

// kvHeadsPerRank is max(1, kv / tp): the replication wall.
func kvHeadsPerRank(kv, tp int) int { return max(1, kv/tp) }

// stageShare is the stage's share of a per-layer quantity x.
func (s *split) stageShare(x int64) int64 {
	return mulDiv(x, int64(s.end), int64(s.n)) - mulDiv(x, int64(s.start), int64(s.n))
}

// classShare is the stage's share of x, a quantity of weight class c: by
// the layers of c's progression the stage runs, or, for a class every
// layer holds alike, stageShare.
func (s *split) classShare(c *WeightClass, x int64) int64 {
	all := progression(c, 0, s.n)
	if c.Step < 1 || all == 0 {
		return s.stageShare(x)
	}
	return mulDiv(x, progression(c, s.start, s.end), all)
}

// progression counts the layers of c's progression in [lo, hi).
func progression(c *WeightClass, lo, hi int) int64 {
	lo, hi = max(lo, c.From), min(hi, c.Until)
	if c.Step < 1 || lo >= hi {
		return 0
	}
	first := c.From + (lo-c.From+c.Step-1)/c.Step*c.Step
	if first >= hi {
		return 0
	}
	return int64((hi-1-first)/c.Step + 1)
}

// weights is the rank's share of the weights, class by class.
func (s *split) weights(m *Model, parts *rankParts) Weights {
	classes := parts.classes[:]
	if len(m.Weights.Classes) > len(classes) {
		classes = make([]WeightClass, len(m.Weights.Classes))
	}
	w := Weights{Source: SourceFormula, Dtype: m.Weights.Dtype, Converted: m.Weights.Converted, Classes: classes[:0:len(m.Weights.Classes)]}
	if s.tp == 1 && s.pp == 1 && s.local == s.experts {
		w.Source = m.Weights.Source
	}
	var sum Bytes
	for _, c := range m.Weights.Classes {
		b, n := s.class(m, c)
		w.Classes = append(w.Classes, WeightClass{Class: c.Class, Bytes: b, Params: n})
		sum = satAdd(sum, b)
	}
	var classed Bytes
	for _, c := range m.Weights.Classes {
		classed = satAdd(classed, c.Bytes)
	}
	if rest := m.Weights.Bytes - classed; rest > 0 { // bytes no class names: split as layer weights
		sum = satAdd(sum, Bytes(s.stageShare(int64(rest))/int64(s.tp)))
	}
	w.Bytes = sum
	w.Matrices = s.matrices(m, parts.matrices[:])
	return w
}

// class is the rank's bytes and parameters of one weight class.
func (s *split) class(m *Model, c WeightClass) (Bytes, int64) {
	b, n := int64(c.Bytes), c.Params
	switch c.Class {
	case "embedding":
		if !s.first && !(s.last && s.tied) {
			return 0, 0
		}
		return Bytes(mulDiv(b, int64(s.vocabRank), int64(s.vocab))), mulDiv(n, int64(s.vocabRank), int64(s.vocab))
	case "output":
		if !s.last {
			return 0, 0
		}
		return Bytes(mulDiv(b, int64(s.vocabRank), int64(s.vocab))), mulDiv(n, int64(s.vocabRank), int64(s.vocab))
	case "attention":
		num, den := s.attentionShare(m, n)
		return Bytes(mulDiv(s.classShare(&c, b), num, den)), mulDiv(s.classShare(&c, n), num, den)
	case "ffn":
		return Bytes(s.classShare(&c, b) / int64(s.tp)), s.classShare(&c, n) / int64(s.tp)
	case "experts":
		num, den := s.expertShare(m, n)
		return Bytes(mulDiv(s.classShare(&c, b), num, den)), mulDiv(s.classShare(&c, n), num, den)
	}
	return Bytes(s.classShare(&c, b)), s.classShare(&c, n) // norms and the rest: replicated
}

// attentionShare is the fraction num/den of the attention class one rank
// holds: the split part over tp, the KV projections by heads per rank, the
// replicated MLA latent projections whole. It works in parameters, which
// the geometry gives for the KV projections and the matrices for MLA's.
func (s *split) attentionShare(m *Model, params int64) (num, den int64) {
	if s.tp == 1 || params <= 0 {
		return 1, 1
	}
	var kvAll, kvRank int64
	for _, g := range m.Layers {
		if g.Kind == LayerFull || g.Kind == LayerSliding {
			per := int64(g.Count) * int64(g.KeyDim+g.ValueDim) * int64(m.HiddenSize)
			kvAll += per * int64(g.KVHeads)
			kvRank += per * int64(kvHeadsPerRank(g.KVHeads, s.tp))
		}
	}
	rep := replicatedParams(m)
	if kvAll+rep > params { // a shape whose geometry disagrees with its classes: split it all
		return 1, int64(s.tp)
	}
	split := params - kvAll - rep
	return split + (kvRank+rep)*int64(s.tp), params * int64(s.tp)
}

// replicatedParams counts MLA's replicated latent projections.
func replicatedParams(m *Model) int64 {
	var n int64
	for _, x := range m.Weights.Matrices {
		if x.Name == "attn_q_a" || x.Name == "attn_kv_a_mqa" {
			n += int64(x.N) * int64(x.K) * int64(x.Count)
		}
	}
	return n
}

// routerParams counts the routers: one E × hidden gate per MoE layer, read
// from the expert matrices' instance counts when the model lists them.
func routerParams(m *Model) int64 {
	e := m.MoE
	layers := int64(m.NumLayers())
	for _, x := range m.Weights.Matrices {
		if x.Name == "ffn_gate_exps" || x.Name == "ffn_up_exps" {
			layers = int64(x.Count) / int64(e.Experts)
			break
		}
	}
	return layers * int64(e.Experts) * int64(m.HiddenSize)
}

// expertShare is the fraction of the experts class one rank holds: its
// experts, split by the experts' tensor split, and the routers whole.
func (s *split) expertShare(m *Model, params int64) (num, den int64) {
	if s.experts == 0 || params <= 0 {
		return 1, int64(s.tp)
	}
	r := routerParams(m)
	if r > params {
		r = 0
	}
	den = params * int64(s.experts) * int64(s.moeTP)
	return (params-r)*int64(s.local) + r*int64(s.experts)*int64(s.moeTP), den
}

// matrices is the rank's GEMM weights: the stage's instances, split by role.
// Each matrix is copied into its place in the result and split there.
func (s *split) matrices(m *Model, store []Matrix) []Matrix {
	if len(m.Weights.Matrices) > len(store) {
		store = make([]Matrix, len(m.Weights.Matrices))
	}
	out := store[:0:len(m.Weights.Matrices)]
	kv := kvHeadsOf(m)
	for i := range m.Weights.Matrices {
		out = append(out, m.Weights.Matrices[i])
		if !s.matrix(&out[len(out)-1], kv) {
			out = out[:len(out)-1]
		}
	}
	return out
}

// matrix splits x, of a model whose attention layers have kv KV heads, to
// the rank's share; it reports whether the rank holds any of it.
func (s *split) matrix(x *Matrix, kv int) bool {
	if x.Name == "output" {
		x.N = s.vocabRank
		return s.last
	}
	x.Count = int(s.stageShare(int64(x.Count)))
	tp := int64(s.tp)
	switch x.Name {
	case "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps":
		x.Count = int(mulDiv(int64(x.Count), int64(s.local), int64(max(s.experts, 1))))
		tp = int64(s.moeTP)
	}
	switch x.Name {
	case "attn_k", "attn_v":
		if kv > 0 {
			x.N = int(mulDiv(int64(x.N), int64(kvHeadsPerRank(kv, s.tp)), int64(kv)))
		}
	case "attn_q", "attn_qkv", "attn_q_b", "attn_kv_b", "ffn_gate", "ffn_up", "ffn_gate_shexp", "ffn_up_shexp",
		"ffn_gate_exps", "ffn_up_exps", "ssm_in":
		x.N = int(ceilDiv(int64(x.N), tp))
	case "attn_output", "ffn_down", "ffn_down_shexp", "ffn_down_exps", "ssm_out":
		x.K = int(ceilDiv(int64(x.K), tp))
	}
	return x.Count > 0 && x.N > 0 && x.K > 0
}

// kvHeadsOf is the KV heads of the model's first attention layer.
func kvHeadsOf(m *Model) int {
	for _, g := range m.Layers {
		if g.Kind == LayerFull || g.Kind == LayerSliding {
			return g.KVHeads
		}
	}
	return 0
}

// mulDiv is x·a/b rounded down, exact for any int64 x, a ≥ 0 and b > 0
// whose result fits; it saturates at MaxBytes otherwise.
func mulDiv(x, a, b int64) int64 {
	if x <= 0 || a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(x), uint64(a))
	if hi >= uint64(b) {
		return int64(MaxBytes)
	}
	q, _ := bits.Div64(hi, lo, uint64(b))
	return int64(min(q, uint64(MaxBytes)))
}
