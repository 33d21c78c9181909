package arch

// This file emits the mixers of the hybrid families, whose blocks keep a
// fixed-size recurrent state instead of (or beside) a KV cache: Mamba2
// (granitemoehybrid) and LFM2's gated short convolution. The tensor shapes
// are the checkpoints' as ml-explore/mlx-lm loads them unchanged (at
// d78bf58e: models/granitemoehybrid.py GraniteMoeHybridMamba2Mixer and
// GraniteMoeHybridSharedMLP, models/lfm2.py ShortConv and Attention), held
// to the published parameter counts by TestParams.

import "github.com/vramplan/vramplan/planner"

// ssmDims are a Mamba2 mixer's: heads of headDim channels (their product is
// the inner width), groups sharing B and C of state elements, a causal
// convolution of kernel taps, and whether the projections and the
// convolution carry biases.
type ssmDims struct {
	heads, headDim, groups, state, kernel int
	convBias, projBias                    bool
}

func (s *ssmDims) inner() int { return s.heads * s.headDim }

// convChannels is the width of the convolution: x, B and C.
func (s *ssmDims) convChannels() int { return s.inner() + 2*s.groups*s.state }

// convDims are LFM2's short convolution: kernel taps (conv_L_cache) over
// hidden channels, with or without biases.
type convDims struct {
	kernel int
	bias   bool
}

// emitMamba2 emits a Mamba2 mixer: in_proj to z, x, B, C and dt; the
// depthwise convolution; dt_bias, A_log and D per head; the gated norm over
// the inner width; out_proj.
func (d *decoder) emitMamba2(b *builder) {
	s := &d.ssm
	b.mat("ssm_in", "mamba.in_proj", s.inner()+s.convChannels()+s.heads, d.hidden, s.projBias)
	b.add("ssm_conv1d", "mamba.conv1d", false, 0, s.convChannels(), s.kernel, KindOther)
	if s.convBias {
		b.add("ssm_conv1d", "mamba.conv1d", true, 0, s.convChannels(), 1, KindVector)
	}
	b.vec("ssm_dt", "mamba.dt_bias", s.heads)
	b.vec("ssm_a", "mamba.A_log", s.heads)
	b.vec("ssm_d", "mamba.D", s.heads)
	b.vec("ssm_norm", "mamba.norm", s.inner())
	b.mat("ssm_out", "mamba.out_proj", d.hidden, s.inner(), s.projBias)
}

// emitConv emits LFM2's short convolution: in_proj to B, C and x, a
// depthwise convolution over the hidden width, out_proj.
func (d *decoder) emitConv(b *builder) {
	c := &d.conv
	b.mat("shortconv.in_proj", "conv.in_proj", 3*d.hidden, d.hidden, c.bias)
	b.add("shortconv.conv", "conv.conv", false, 0, d.hidden, c.kernel, KindOther)
	if c.bias {
		b.add("shortconv.conv", "conv.conv", true, 0, d.hidden, 1, KindVector)
	}
	b.mat("shortconv.out_proj", "conv.out_proj", d.hidden, d.hidden, c.bias)
}

// recurrentLayer is the per-sequence state of a Mamba2 or short-convolution
// layer: kernel−1 columns of the convolution and, for Mamba2, one f32 state
// of headDim × state elements per head.
func (d *decoder) recurrentLayer(p layerPlan) planner.Layer {
	r := &planner.Recurrent{ConvChannels: d.hidden, ConvKernel: d.conv.kernel}
	if p.mix == mixMamba2 {
		s := &d.ssm
		r = &planner.Recurrent{ConvChannels: s.convChannels(), ConvKernel: s.kernel,
			Heads: s.heads, HeadDim: s.headDim, StateDim: s.state, StateBytes: 4}
	}
	return planner.Layer{Kind: planner.LayerRecurrent, Recurrent: r}
}

// emitGraniteFFN emits granitemoehybrid's FFN: routed experts (router,
// input_linear fusing gate and up, output_linear) when the model has them,
// and the shared MLP, fused the same way, on every layer.
func (d *decoder) emitGraniteFFN(b *builder) {
	m := &d.moe
	suffix := ""
	if m.experts > 0 {
		b.add("ffn_gate_inp", "block_sparse_moe.router.layer", false, 0, m.experts, d.hidden, KindRouter)
		b.exps("ffn_gate_up_exps", "block_sparse_moe.input_linear", m.experts, 2*m.inter, d.hidden, false)
		b.exps("ffn_down_exps", "block_sparse_moe.output_linear", m.experts, d.hidden, m.inter, false)
		suffix = "_shexp"
	}
	b.mat("ffn_up"+suffix, "shared_mlp.input_linear", 2*m.sharedInter, d.hidden, false)
	b.mat("ffn_down"+suffix, "shared_mlp.output_linear", d.hidden, m.sharedInter, false)
}

// emitCross emits an mllama cross-attention block: Q from the text, K and V
// from the projected image states (text width), per-head Q and K norms, and
// the tanh gates of the attention and of the MLP (one element each).
func (d *decoder) emitCross(b *builder) {
	hd := d.headDim
	b.mat("attn_q", "cross_attn.q_proj", d.heads*hd, d.hidden, false)
	b.mat("attn_k", "cross_attn.k_proj", d.kvHeads*hd, d.hidden, false)
	b.mat("attn_v", "cross_attn.v_proj", d.kvHeads*hd, d.hidden, false)
	b.mat("attn_output", "cross_attn.o_proj", d.hidden, d.heads*hd, false)
	b.vec("attn_q_norm", "cross_attn.q_norm", hd)
	b.vec("attn_k_norm", "cross_attn.k_norm", hd)
	b.vec("attn_gate_attn", "cross_attn_attn_gate", 1)
	b.vec("attn_gate_mlp", "cross_attn_mlp_gate", 1)
}
