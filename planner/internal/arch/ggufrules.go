package arch

// This file applies llama.cpp's per-tensor type choice (llama-quant.cpp,
// llama_tensor_get_type) for the common file types, so that a catalog entry
// or a --weights-dtype q4_k_m override sizes a GGUF the way llama-quantize
// would write it. Only the rules of the file types listed are implemented;
// the 70B-specific attn_v bump is not.

import "strings"

// ggufFileType is a llama.cpp file type: its default tensor type and whether
// it is one of the _M mixes that spend more bits on some layers.
type ggufFileType struct {
	name  string
	base  string
	mixed bool // Q4_K_M, Q5_K_M: attn_v and ffn_down get Q6_K on use_more_bits layers
	small bool // Q4_K_S: the first attn_v get Q5_K
}

var ggufFileTypes = map[string]ggufFileType{
	"f32": {name: "f32", base: "f32"}, "f16": {name: "f16", base: "f16"}, "bf16": {name: "bf16", base: "bf16"},
	"q8_0": {name: "q8_0", base: "q8_0"}, "q4_0": {name: "q4_0", base: "q4_0"}, "q5_0": {name: "q5_0", base: "q5_0"},
	"q6_k": {name: "q6_k", base: "q6_k"}, "q5_k_s": {name: "q5_k_s", base: "q5_k"},
	"q5_k_m": {name: "q5_k_m", base: "q5_k", mixed: true}, "q4_k_s": {name: "q4_k_s", base: "q4_k", small: true},
	"q4_k_m": {name: "q4_k_m", base: "q4_k", mixed: true}, "mxfp4_moe": {name: "mxfp4_moe", base: "mxfp4"},
}

// ggufRules holds what llama_tensor_get_type counts over the whole model.
type ggufRules struct {
	ft        ggufFileType
	base      Format
	hasOutput bool
	experts   int
	layers    int
	attnV     map[int]int // i_attention_wv of each layer's attn_v
	nAttnV    int
}

func ggufScheme(ft ggufFileType, ts []Tensor) Scheme {
	r := &ggufRules{ft: ft, base: mustFormat(ft.base), attnV: map[int]int{}}
	for i := range ts {
		t := &ts[i]
		r.hasOutput = r.hasOutput || t.Role == "output"
		r.experts = max(r.experts, t.Experts)
		r.layers = max(r.layers, t.Layer+1)
		if t.Role == "attn_v" && t.Kind == KindMatrix {
			r.attnV[t.Layer] = r.nAttnV
			r.nAttnV++
		}
	}
	return Scheme{Dtype: ft.name, pick: r.pick}
}

func (r *ggufRules) pick(t *Tensor) Format {
	if t.Kind == KindVector || t.Kind == KindRouter || t.Kind == KindOther {
		return mustFormat("f32")
	}
	if r.base.Name == "f16" || r.base.Name == "bf16" || r.base.Name == "f32" {
		return r.base
	}
	f := mustFormat(r.choose(t))
	if !f.blockAligned(t.K) {
		f = mustFormat(fallback(f.Name))
	}
	return f
}

// choose is llama_tensor_get_type for the implemented file types.
func (r *ggufRules) choose(t *Tensor) string {
	base := r.base.Name
	switch {
	case r.ft.name == "mxfp4_moe":
		return map[bool]string{true: "mxfp4", false: "q8_0"}[t.Experts > 0]
	case t.Role == "output" || (t.Kind == KindEmbed && !r.hasOutput):
		if base == "q8_0" {
			return base
		}
		return "q6_k"
	case t.Role == "attn_v":
		return r.attnVType(t)
	case t.Role == "attn_k" && r.experts == 8:
		return "q8_0"
	case strings.HasPrefix(t.Role, "ffn_down"):
		if r.ft.mixed && useMoreBits(t.Layer, r.layers) {
			return "q6_k"
		}
	case t.Role == "attn_output" && r.experts == 8 && (r.ft.name == "q4_k_m" || r.ft.name == "q4_k_s"):
		return "q5_k"
	case t.Role == "attn_qkv" && r.ft.mixed:
		return map[string]string{"q4_k": "q5_k", "q5_k": "q6_k"}[base]
	}
	return base
}

func (r *ggufRules) attnVType(t *Tensor) string {
	i := r.attnV[t.Layer]
	switch {
	case r.experts == 8:
		return "q8_0"
	case r.ft.mixed && useMoreBits(i, r.nAttnV):
		return "q6_k"
	case r.ft.small && i < 4:
		return "q5_k"
	}
	return r.base.Name
}

// useMoreBits is llama.cpp's use_more_bits: the first and last eighth of
// the layers and every third layer between them.
func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// fallback is the type llama.cpp substitutes when a row does not fill
// whole 256-element super-blocks (or 32-element blocks).
func fallback(name string) string {
	switch name {
	case "q4_k":
		return "q5_0"
	case "q5_k":
		return "q5_1"
	case "q6_k":
		return "q8_0"
	case "q2_k", "q3_k":
		return "iq4_nl"
	}
	return "f16"
}
