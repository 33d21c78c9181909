package arch

// This file emits the tensors and layer geometry of a decoder-only
// transformer from the dimensions a template read. Templates only set
// fields; the emission is shared, so a norm or bias counted for one family
// is counted the same way for all.

import "github.com/vramplan/vramplan/planner"

type mixer int

const (
	mixAttn   mixer = iota // softmax attention over K and V
	mixMLA                 // multi-head latent attention
	mixLinear              // gated delta-net linear attention (qwen3_next, qwen3_5)
	mixMamba2              // Mamba2 selective state space (granitemoehybrid)
	mixConv                // gated short convolution (lfm2)
	mixCross               // cross-attention over image states (mllama)
)

type ffnKind int

const (
	ffnDense ffnKind = iota
	ffnMoE
)

// layerPlan is one block: its mixer, its window (0 for full attention) and its FFN.
type layerPlan struct {
	mix    mixer
	window int
	ffn    ffnKind
}

type moeDims struct {
	experts, used, inter      int
	shared, sharedInter       int    // shared experts and their summed width
	routerBias, expertBias    bool   // gpt_oss
	scoreBias, sharedGate     bool   // deepseek_v3 e_score_correction_bias; qwen shared_expert_gate
	module, router, sharedMod string // Hugging Face modules: "mlp", "mlp.gate", "mlp.shared_expert."
}

type mlaDims struct{ qLora, kvLora, rope, nope, v int }

// linDims are a gated delta net's; split names Qwen3.5's four input
// projections (in_proj_qkv, _z, _b, _a) where Qwen3-Next fuses them in two.
type linDims struct {
	kernel, kHeads, vHeads, kDim, vDim int
	split                              bool
}

// moduleNames are the Hugging Face modules a family gives the parts every
// block shares; Parse starts every template from llamaNames.
type moduleNames struct {
	model, head                                         string // the language model's prefix ("model.") and lm_head
	attnNorm, ffnNorm, finalNorm, attn, o, qNorm, kNorm string
	mlp, gate, up, down, gateUp                         string
}

var llamaNames = moduleNames{model: "model.", head: "lm_head", attnNorm: "input_layernorm", ffnNorm: "post_attention_layernorm", finalNorm: "norm",
	attn: "self_attn.", o: "o_proj", qNorm: "q_norm", kNorm: "k_norm",
	mlp: "mlp.", gate: "gate_proj", up: "up_proj", down: "down_proj", gateUp: "gate_up_proj"}

// decoder is a decoder-only transformer as a template read it.
type decoder struct {
	arch                                         string
	hidden, vocab, inter, heads, kvHeads, maxCtx int
	headDim, vHeadDim                            int
	tied, qkvBias, oBias, mlpBias, qkNorm, sinks bool
	fusedQKV, fusedGateUp, gemmaNorms, gatedQ    bool
	embedRows                                    int // embedding rows when more than vocab (mllama)
	plan                                         []layerPlan
	moe                                          moeDims
	mla                                          mlaDims
	lin                                          linDims
	ssm                                          ssmDims
	conv                                         convDims
	names                                        moduleNames
	graniteFFN                                   bool // shared_mlp and block_sparse_moe (granitemoehybrid)
}

// tensors emits every tensor of the language model.
func (d *decoder) tensors() []Tensor {
	n := &d.names
	b := newBuilder("blk.", n.model+"layers.", 24*len(d.plan)+4)
	b.add("token_embd", n.model+"embed_tokens", false, 0, max(d.embedRows, d.vocab), d.hidden, KindEmbed)
	for i, p := range d.plan {
		b.layer = i
		d.emitMixer(b, p)
		d.emitFFN(b, p)
	}
	b.layer = -1
	b.vec("output_norm", n.model+n.finalNorm, d.hidden)
	if !d.tied {
		b.mat("output", n.head, d.vocab, d.hidden, false)
	}
	return b.ts
}

func (d *decoder) emitMixer(b *builder, p layerPlan) {
	b.vec("attn_norm", d.names.attnNorm, d.hidden)
	switch p.mix {
	case mixAttn:
		d.emitAttn(b, d.names.attn)
	case mixMLA:
		d.emitMLA(b)
	case mixLinear:
		d.emitLinear(b)
	case mixMamba2:
		d.emitMamba2(b)
	case mixConv:
		d.emitConv(b)
	case mixCross:
		d.emitCross(b)
	}
	if d.gemmaNorms {
		b.vec("post_attention_norm", "post_attention_layernorm", d.hidden)
	}
}

// emitAttn emits softmax attention under module prefix m ("self_attn.").
func (d *decoder) emitAttn(b *builder, m string) {
	q := d.heads * d.headDim
	if d.gatedQ {
		q *= 2
	}
	k, v := d.kvHeads*d.headDim, d.kvHeads*d.vHeadDim
	if d.fusedQKV {
		b.mat("attn_qkv", m+"qkv_proj", q+k+v, d.hidden, d.qkvBias)
	} else {
		b.mat("attn_q", m+"q_proj", q, d.hidden, d.qkvBias)
		b.mat("attn_k", m+"k_proj", k, d.hidden, d.qkvBias)
		b.mat("attn_v", m+"v_proj", v, d.hidden, d.qkvBias)
	}
	b.mat("attn_output", m+d.names.o, d.hidden, d.heads*d.vHeadDim, d.oBias)
	if d.qkNorm {
		b.vec("attn_q_norm", m+d.names.qNorm, d.headDim)
		b.vec("attn_k_norm", m+d.names.kNorm, d.headDim)
	}
	if d.sinks {
		b.vec("attn_sinks", m+"sinks", d.heads)
	}
}

func (d *decoder) emitMLA(b *builder) {
	m := &d.mla
	qk := d.heads * (m.nope + m.rope)
	if m.qLora > 0 {
		b.mat("attn_q_a", "self_attn.q_a_proj", m.qLora, d.hidden, false)
		b.vec("attn_q_a_norm", "self_attn.q_a_layernorm", m.qLora)
		b.mat("attn_q_b", "self_attn.q_b_proj", qk, m.qLora, false)
	} else {
		b.mat("attn_q", "self_attn.q_proj", qk, d.hidden, false)
	}
	b.mat("attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa", m.kvLora+m.rope, d.hidden, false)
	b.vec("attn_kv_a_norm", "self_attn.kv_a_layernorm", m.kvLora)
	b.mat("attn_kv_b", "self_attn.kv_b_proj", d.heads*(m.nope+m.v), m.kvLora, false)
	b.mat("attn_output", "self_attn.o_proj", d.hidden, d.heads*m.v, false)
}

func (d *decoder) emitLinear(b *builder) {
	l := &d.lin
	kd, vd := l.kHeads*l.kDim, l.vHeads*l.vDim
	if l.split {
		b.mat("ssm_in", "linear_attn.in_proj_qkv", 2*kd+vd, d.hidden, false)
		b.mat("ssm_in_z", "linear_attn.in_proj_z", vd, d.hidden, false)
		b.mat("ssm_beta", "linear_attn.in_proj_b", l.vHeads, d.hidden, false)
		b.mat("ssm_alpha", "linear_attn.in_proj_a", l.vHeads, d.hidden, false)
	} else {
		b.mat("ssm_in", "linear_attn.in_proj_qkvz", 2*kd+2*vd, d.hidden, false)
		b.mat("ssm_ba", "linear_attn.in_proj_ba", 2*l.vHeads, d.hidden, false)
	}
	b.add("ssm_conv1d", "linear_attn.conv1d", false, 0, 2*kd+vd, l.kernel, KindOther)
	b.vec("ssm_dt", "linear_attn.dt_bias", l.vHeads)
	b.vec("ssm_a", "linear_attn.A_log", l.vHeads)
	b.vec("ssm_norm", "linear_attn.norm", l.vDim)
	b.mat("ssm_out", "linear_attn.out_proj", d.hidden, vd, false)
}

func (d *decoder) emitFFN(b *builder, p layerPlan) {
	if d.gemmaNorms {
		b.vec("ffn_norm", "pre_feedforward_layernorm", d.hidden)
	} else {
		b.vec("ffn_norm", d.names.ffnNorm, d.hidden)
	}
	switch {
	case d.graniteFFN:
		d.emitGraniteFFN(b)
	case p.ffn == ffnMoE:
		d.emitMoE(b)
	default:
		d.emitMLP(b, "", d.names.mlp, d.inter)
	}
	if d.gemmaNorms {
		b.vec("post_ffw_norm", "post_feedforward_layernorm", d.hidden)
	}
}

// emitMLP emits a gated MLP of width inter; suffix names a shared expert.
func (d *decoder) emitMLP(b *builder, suffix, module string, inter int) {
	n := &d.names
	if d.fusedGateUp {
		b.mat("ffn_up"+suffix, module+n.gateUp, 2*inter, d.hidden, d.mlpBias)
	} else {
		b.mat("ffn_gate"+suffix, module+n.gate, inter, d.hidden, d.mlpBias)
		b.mat("ffn_up"+suffix, module+n.up, inter, d.hidden, d.mlpBias)
	}
	b.mat("ffn_down"+suffix, module+n.down, d.hidden, inter, d.mlpBias)
}

func (d *decoder) emitMoE(b *builder) {
	m := &d.moe
	b.add("ffn_gate_inp", m.router, false, 0, m.experts, d.hidden, KindRouter)
	if m.routerBias {
		b.add("ffn_gate_inp", m.router, true, 0, m.experts, 1, KindVector)
	}
	if m.scoreBias {
		b.add("exp_probs_b", m.router+".e_score_correction_bias", true, 0, m.experts, 1, KindVector)
	}
	ex := m.module + ".experts"
	b.exps("ffn_gate_exps", ex, m.experts, m.inter, d.hidden, m.expertBias)
	b.exps("ffn_up_exps", ex, m.experts, m.inter, d.hidden, m.expertBias)
	b.exps("ffn_down_exps", ex, m.experts, d.hidden, m.inter, m.expertBias)
	if m.sharedInter > 0 {
		d.emitMLP(b, "_shexp", m.sharedMod, m.sharedInter)
	}
	if m.sharedGate {
		b.add("ffn_gate_inp_shexp", m.module+".shared_expert_gate", false, 0, 1, d.hidden, KindRouter)
	}
}

// layers returns the per-layer KV geometry.
func (d *decoder) layers() []planner.Layer {
	out := make([]planner.Layer, len(d.plan))
	for i, p := range d.plan {
		out[i] = d.layer(p)
	}
	return out
}

func (d *decoder) layer(p layerPlan) planner.Layer {
	switch p.mix {
	case mixMLA:
		return planner.Layer{Kind: planner.LayerMLA, LatentDim: d.mla.kvLora + d.mla.rope}
	case mixLinear:
		l := &d.lin
		return planner.Layer{Kind: planner.LayerRecurrent, Recurrent: &planner.Recurrent{
			ConvChannels: 2*l.kHeads*l.kDim + l.vHeads*l.vDim, ConvKernel: l.kernel,
			Heads: l.vHeads, HeadDim: l.vDim, StateDim: l.kDim, StateBytes: 4}}
	case mixMamba2, mixConv:
		return d.recurrentLayer(p)
	}
	l := planner.Layer{Kind: planner.LayerFull, KVHeads: d.kvHeads, KeyDim: d.headDim, ValueDim: d.vHeadDim}
	if p.window > 0 {
		l.Kind, l.Window = planner.LayerSliding, p.window
	}
	return l
}
