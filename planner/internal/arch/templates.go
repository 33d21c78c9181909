package arch

// This file holds one template per config.json model_type. A template reads
// the fields its family uses, with the defaults its transformers
// configuration class declares, and sets the decoder's options.

import "slices"

// maxLayers bounds num_hidden_layers before anything is sized by it.
const maxLayers = 4096

type template func(f *fields, d *decoder)

var templates = map[string]template{
	"llama":       readLlama,
	"mistral":     readMistral,
	"qwen2":       readQwen2,
	"qwen3":       readQwen3,
	"qwen3_moe":   readQwen3MoE,
	"mixtral":     readMixtral,
	"gemma2":      readGemma2,
	"gemma3_text": readGemma3Text,
	"phi3":        readPhi3,
	"deepseek_v2": readDeepSeek,
	"deepseek_v3": readDeepSeek,
	"gpt_oss":     readGptOss,
	"qwen3_next":  readQwen3Next,

	"granitemoehybrid":  readGraniteHybrid,
	"lfm2":              readLFM2,
	"qwen3_5":           readQwen35, // a text-only copy of qwen3_5_text
	"qwen3_5_text":      readQwen35,
	"qwen3_5_moe_text":  readQwen35,
	"qwen2_vl":          readQwen2, // Qwen2-VL's language model, flat in its config
	"qwen2_vl_text":     readQwen2,
	"qwen3_vl_text":     readQwen3VLText,
	"qwen3_vl_moe_text": readQwen3VLMoEText,
	"mllama_text_model": readMllamaText,
}

// textTypes names the language model of a multimodal config whose
// text_config states no model_type.
var textTypes = map[string]string{"gemma3": "gemma3_text"}

// Architectures lists the model_type values that have a template.
func Architectures() []string {
	var out []string
	for k := range templates {
		out = append(out, k)
	}
	slices.Sort(out)
	return append(out, "gemma3")
}

// readCommon reads the fields every decoder has; defs gives defaults for
// fields a configuration class does not require.
func readCommon(f *fields, d *decoder, defs map[string]int) {
	get := func(k string) int {
		if v, ok := defs[k]; ok {
			return f.int(k, v)
		}
		return f.need(k)
	}
	d.hidden = get("hidden_size")
	n := get("num_hidden_layers")
	d.heads = get("num_attention_heads")
	d.vocab = get("vocab_size")
	d.inter = get("intermediate_size")
	d.kvHeads = f.int("num_key_value_heads", d.heads)
	d.headDim = f.int("head_dim", defs["head_dim"])
	if d.headDim == 0 && d.heads > 0 {
		d.headDim = d.hidden / d.heads
	}
	d.vHeadDim = d.headDim
	d.maxCtx = f.int("max_position_embeddings", defs["max_position_embeddings"])
	d.tied = f.bool("tie_word_embeddings", defs["tie_word_embeddings"] == 1)
	if n > maxLayers {
		f.fail("num_hidden_layers", "%d is more than %d", n, maxLayers)
		n = 0
	}
	d.plan = make([]layerPlan, n)
}

// readLayerTypes applies layer_types when the config has it.
func readLayerTypes(f *fields, d *decoder, window int) {
	types := f.strs("layer_types")
	if types == nil {
		return
	}
	if len(types) != len(d.plan) {
		f.fail("layer_types", "has %d entries for %d layers", len(types), len(d.plan))
		return
	}
	for i, t := range types {
		switch t {
		case "full_attention":
			d.plan[i].window = 0
		case "sliding_attention":
			d.plan[i].window = window
		case "linear_attention":
			d.plan[i].mix = mixLinear
		default:
			f.fail("layer_types", "unknown layer type %q", t)
		}
	}
}

func readLlama(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.qkvBias = f.bool("attention_bias", false)
	d.oBias, d.mlpBias = d.qkvBias, f.bool("mlp_bias", false)
}

func readMistral(f *fields, d *decoder) {
	readCommon(f, d, nil)
	w := f.int("sliding_window", 0)
	for i := range d.plan {
		d.plan[i].window = w
	}
	readLayerTypes(f, d, w)
}

// readQwenWindows applies Qwen's use_sliding_window from max_window_layers up.
func readQwenWindows(f *fields, d *decoder) {
	w := f.int("sliding_window", 0)
	if f.bool("use_sliding_window", false) {
		from := f.int("max_window_layers", 0)
		for i := from; i < len(d.plan); i++ {
			d.plan[i].window = w
		}
	}
	readLayerTypes(f, d, w)
}

func readQwen2(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.qkvBias = true
	readQwenWindows(f, d)
}

func readQwen3(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.qkNorm = true
	d.qkvBias = f.bool("attention_bias", false)
	d.oBias = d.qkvBias
	readQwenWindows(f, d)
}

// readQwenMoE reads the experts of qwen3_moe and qwen3_next.
func readQwenMoE(f *fields, d *decoder) {
	d.moe = moeDims{experts: f.need("num_experts"), used: f.need("num_experts_per_tok"),
		inter: f.need("moe_intermediate_size"), module: "mlp", router: "mlp.gate", sharedMod: "mlp.shared_expert."}
	step := max(f.int("decoder_sparse_step", 1), 1)
	dense := f.ints("mlp_only_layers")
	for i := range d.plan {
		if d.moe.experts > 0 && (i+1)%step == 0 && !slices.Contains(dense, i) {
			d.plan[i].ffn = ffnMoE
		}
	}
}

func readQwen3MoE(f *fields, d *decoder) {
	readQwen3(f, d)
	readQwenMoE(f, d)
}

func readMixtral(f *fields, d *decoder) {
	readMistral(f, d)
	d.moe = moeDims{experts: f.need("num_local_experts"), used: f.need("num_experts_per_tok"),
		inter: d.inter, module: "block_sparse_moe", router: "block_sparse_moe.gate"}
	for i := range d.plan {
		d.plan[i].ffn = ffnMoE
	}
}

func readGemma2(f *fields, d *decoder) {
	readCommon(f, d, map[string]int{"head_dim": 256, "tie_word_embeddings": 1})
	d.gemmaNorms = true
	w := f.int("sliding_window", 4096)
	for i := range d.plan {
		if i%2 == 0 {
			d.plan[i].window = w
		}
	}
	readLayerTypes(f, d, w)
}

// gemma3TextDefaults are Gemma3TextConfig's defaults: gemma3 configs leave
// most text_config fields out.
var gemma3TextDefaults = map[string]int{
	"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
	"num_attention_heads": 8, "head_dim": 256, "max_position_embeddings": 131072, "tie_word_embeddings": 1,
}

func readGemma3Text(f *fields, d *decoder) {
	readCommon(f, d, gemma3TextDefaults)
	if !f.has("num_key_value_heads") {
		d.kvHeads = 4
	}
	d.gemmaNorms, d.qkNorm = true, true
	w := f.int("sliding_window", 4096)
	pattern := max(f.int("sliding_window_pattern", 6), 1)
	for i := range d.plan {
		if (i+1)%pattern != 0 {
			d.plan[i].window = w
		}
	}
	readLayerTypes(f, d, w)
}

// readPhi3 reads Phi-3 and Phi-4. Its sliding_window is not applied: llama.cpp
// and vLLM run every Phi-3 layer with full attention.
func readPhi3(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.fusedQKV, d.fusedGateUp = true, true
}

func readDeepSeek(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.mla = mlaDims{qLora: f.int("q_lora_rank", 0), kvLora: f.need("kv_lora_rank"),
		rope: f.need("qk_rope_head_dim"), nope: f.need("qk_nope_head_dim"), v: f.need("v_head_dim")}
	d.moe = moeDims{experts: f.int("n_routed_experts", 0), used: f.int("num_experts_per_tok", 0),
		inter: f.int("moe_intermediate_size", 0), shared: f.int("n_shared_experts", 0),
		scoreBias: f.str("topk_method") == "noaux_tc", module: "mlp", router: "mlp.gate", sharedMod: "mlp.shared_experts."}
	d.moe.sharedInter = d.moe.shared * d.moe.inter
	first, freq := f.int("first_k_dense_replace", 0), max(f.int("moe_layer_freq", 1), 1)
	for i := range d.plan {
		d.plan[i].mix = mixMLA
		if d.moe.experts > 0 && i >= first && i%freq == 0 {
			d.plan[i].ffn = ffnMoE
		}
	}
}

func readGptOss(f *fields, d *decoder) {
	readCommon(f, d, nil)
	d.qkvBias = f.bool("attention_bias", true)
	d.oBias, d.sinks = d.qkvBias, true
	used := f.int("num_experts_per_tok", f.int("experts_per_token", 0))
	d.moe = moeDims{experts: f.need("num_local_experts"), used: used, inter: d.inter,
		routerBias: true, expertBias: true, module: "mlp", router: "mlp.router"}
	w := f.int("sliding_window", 128)
	for i := range d.plan {
		d.plan[i].ffn = ffnMoE
		if i%2 == 0 {
			d.plan[i].window = w
		}
	}
	readLayerTypes(f, d, w)
}

func readQwen3Next(f *fields, d *decoder) {
	readCommon(f, d, nil)
	readGatedDeltaNet(f, d, true)
}

// readGatedDeltaNet reads Qwen3-Next's layout, shared by Qwen3.5: gated
// delta nets with every full_attention_interval-th layer (or layer_types'
// full_attention) gated attention, and, when moe, routed experts with a
// gated shared expert.
func readGatedDeltaNet(f *fields, d *decoder, moe bool) {
	d.qkNorm, d.gatedQ = true, true
	d.lin = linDims{kernel: f.need("linear_conv_kernel_dim"), kHeads: f.need("linear_num_key_heads"),
		vHeads: f.need("linear_num_value_heads"), kDim: f.need("linear_key_head_dim"), vDim: f.need("linear_value_head_dim")}
	every := max(f.int("full_attention_interval", 4), 1)
	for i := range d.plan {
		if (i+1)%every != 0 {
			d.plan[i].mix = mixLinear
		}
	}
	readLayerTypes(f, d, 0)
	if !moe {
		return
	}
	readQwenMoE(f, d)
	d.moe.sharedInter = f.int("shared_expert_intermediate_size", 0)
	d.moe.sharedGate = d.moe.sharedInter > 0
	if d.moe.sharedInter > 0 {
		d.moe.shared = 1
	}
}
