package arch

// This file holds the templates of the families whose layers are not all
// attention: Granite 4.0's Mamba2 hybrid, LFM2's short convolutions,
// Qwen3.5's gated delta nets, and mllama's cross-attention layers. Each
// reads the fields its configuration class declares; the dimensions no
// class defaults are required.

import (
	"math"
	"slices"
)

// readMixers sets each layer's mixer from layer_types, whose values kinds
// maps. It reports whether the config has layer_types.
func readMixers(f *fields, d *decoder, kinds map[string]mixer) bool {
	types := f.strs("layer_types")
	if types == nil {
		return false
	}
	if len(types) != len(d.plan) {
		f.fail("layer_types", "has %d entries for %d layers", len(types), len(d.plan))
		return true
	}
	for i, t := range types {
		m, ok := kinds[t]
		if !ok {
			f.fail("layer_types", "unknown layer type %q", t)
			return true
		}
		d.plan[i].mix = m
	}
	return true
}

// readGraniteHybrid reads granitemoehybrid (Granite 4.0): Mamba2 and
// attention layers as layer_types lists them, each followed by the shared
// MLP (shared_intermediate_size) and, when num_local_experts > 0, routed
// experts of intermediate_size beside it. Attention has no head_dim field:
// it is hidden_size / num_attention_heads. The Mamba2 dimensions are read
// only when a layer is Mamba2 (granite-4.0-micro has none).
func readGraniteHybrid(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.qkvBias = f.bool("attention_bias", false)
	d.oBias, d.graniteFFN = d.qkvBias, true
	d.moe = moeDims{experts: f.int("num_local_experts", 0), used: f.int("num_experts_per_tok", 0),
		inter: d.inter, sharedInter: f.need("shared_intermediate_size"), module: "block_sparse_moe"}
	if d.moe.experts == 0 {
		d.inter, d.moe.inter, d.moe.used = d.moe.sharedInter, 0, 0
	} else {
		d.moe.shared = 1
		for i := range d.plan {
			d.plan[i].ffn = ffnMoE
		}
	}
	if !readMixers(f, d, map[string]mixer{"mamba": mixMamba2, "attention": mixAttn}) {
		f.fail("layer_types", "missing")
	}
	if slices.ContainsFunc(d.plan, func(p layerPlan) bool { return p.mix == mixMamba2 }) {
		d.ssm = ssmDims{heads: f.need("mamba_n_heads"), headDim: f.need("mamba_d_head"), groups: f.int("mamba_n_groups", 1),
			state: f.need("mamba_d_state"), kernel: f.need("mamba_d_conv"),
			convBias: f.bool("mamba_conv_bias", true), projBias: f.bool("mamba_proj_bias", false)}
	}
}

// readLFM2 reads lfm2: gated short convolutions and attention layers (by
// layer_types, or full_attn_idxs in the first configs), a SwiGLU MLP whose
// width LFM2 derives from intermediate_size (block_ff_dim) as Llama does
// (⅔, times block_ffn_dim_multiplier, rounded up to block_multiple_of),
// and embeddings always tied.
func readLFM2(f *fields, d *decoder) {
	readCommon(f, d, map[string]int{"intermediate_size": f.int("block_ff_dim", 0), "tie_word_embeddings": 1})
	d.tied = f.bool("tie_embedding", d.tied)
	if d.inter == 0 {
		f.fail("intermediate_size", "missing (nor block_ff_dim)")
	}
	d.inter = lfm2Width(f, d.inter)
	d.qkNorm, d.conv = true, convDims{kernel: f.need("conv_L_cache"), bias: f.bool("conv_bias", false)}
	d.names.attnNorm, d.names.ffnNorm, d.names.finalNorm = "operator_norm", "ffn_norm", "embedding_norm"
	d.names.o, d.names.qNorm, d.names.kNorm = "out_proj", "q_layernorm", "k_layernorm"
	d.names.mlp, d.names.gate, d.names.up, d.names.down = "feed_forward.", "w1", "w3", "w2"
	for i := range d.plan {
		d.plan[i].mix = mixConv
	}
	if readMixers(f, d, map[string]mixer{"conv": mixConv, "full_attention": mixAttn}) {
		return
	}
	for _, i := range f.ints("full_attn_idxs") {
		if i >= len(d.plan) {
			f.fail("full_attn_idxs", "layer %d of %d", i, len(d.plan))
			return
		}
		d.plan[i].mix = mixAttn
	}
}

// lfm2Width is the MLP width LFM2 builds from ff (Lfm2MLP).
func lfm2Width(f *fields, ff int) int {
	if !f.bool("block_auto_adjust_ff_dim", true) {
		return ff
	}
	w := int(2 * float64(ff) / 3)
	if m := f.num("block_ffn_dim_multiplier", 1); m > 0 {
		w = int(math.Min(m*float64(w), maxInt))
	}
	step := max(f.int("block_multiple_of", 256), 1)
	return step * ((w + step - 1) / step)
}

// readQwen35 reads qwen3_5's language model (qwen3_5_text and
// qwen3_5_moe_text): Qwen3-Next's layout, gated delta nets with every
// full_attention_interval-th layer attention, with the delta net's inputs in
// four projections, the attention output gate as attn_output_gate says, and
// a dense MLP unless the config has experts.
func readQwen35(f *fields, d *decoder) {
	moe := f.has("num_experts")
	var defs map[string]int
	if moe {
		defs = map[string]int{"intermediate_size": 0}
	}
	readCommon(f, d, defs)
	readGatedDeltaNet(f, d, moe)
	d.gatedQ, d.lin.split = f.bool("attn_output_gate", true), true
	d.names.model = "model.language_model."
}

// readMllamaText reads mllama's language model (mllama_text_model): Llama
// with cross-attention layers at cross_attention_layers, and an embedding
// of vocab_size + 8 rows (MllamaTextModel's embed_tokens).
func readMllamaText(f *fields, d *decoder) {
	readLlama(f, d)
	d.embedRows = d.vocab + 8
	d.names.model, d.names.head = "language_model.model.", "language_model.lm_head"
	for _, i := range f.ints("cross_attention_layers") {
		if i >= len(d.plan) {
			f.fail("cross_attention_layers", "layer %d of %d", i, len(d.plan))
			return
		}
		d.plan[i].mix = mixCross
	}
}

// readQwen3VLText and readQwen3VLMoEText read Qwen3-VL's language models,
// Qwen3's and Qwen3-MoE's under model.language_model.
func readQwen3VLText(f *fields, d *decoder) {
	readQwen3(f, d)
	d.names.model = "model.language_model."
}

func readQwen3VLMoEText(f *fields, d *decoder) {
	readQwen3MoE(f, d)
	d.names.model = "model.language_model."
}
