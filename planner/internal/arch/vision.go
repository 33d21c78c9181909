package arch

import (
	"maps"
	"slices"
)

// This file reads a multimodal config's vision_config into the tower's
// tensors: one reader per family, chosen by the config's own model_type.
// The tower is counted apart from the language model (Spec.Vision), as the
// planner charges it apart.

// visionReader reads vision_config vc of config f; textHidden is the
// language model's width, which the projector feeds.
type visionReader func(f, vc *fields, textHidden int) *Vision

// visionReaders are the towers by the top-level model_type.
var visionReaders = map[string]visionReader{
	"gemma3":       readSiglip,
	"qwen2_vl":     readQwen2VLVision,
	"qwen3_vl":     readQwen3VLVision,
	"qwen3_vl_moe": readQwen3VLVision,
	"qwen3_5":      readQwen3VLVision,
	"qwen3_5_moe":  readQwen3VLVision,
	"mllama":       readMllamaVision,
}

// maxVisionDim bounds every width, size and count a tower is built from, so
// that no product of them overflows.
const maxVisionDim = 1 << 16

// readVision reads the vision tower of f, or returns nil when the config
// has none or its family has no reader.
func readVision(f *fields, textHidden int) *Vision {
	r, ok := visionReaders[f.str("model_type")]
	vc := f.sub("vision_config")
	if !ok || vc == nil {
		return nil
	}
	v := r(f, vc, textHidden)
	if v != nil && !towerBounded(vc, v) {
		return nil
	}
	return v
}

// maxVisionElements bounds a tower's elements: each dimension is bounded,
// their products are not, and the planner refuses a tower past 1 PiB.
const maxVisionElements = 1 << 47

// towerBounded reports whether v's tensors hold at most maxVisionElements,
// failing vc otherwise.
func towerBounded(vc *fields, v *Vision) bool {
	var n int64
	for _, t := range v.Tensors {
		e := max(int64(t.Experts), 1)
		if t.N < 0 || t.K < 0 || t.K > 0 && t.N > maxVisionElements/e/t.K || n+e*t.N*t.K > maxVisionElements {
			vc.fail("", "the tower holds more than %d elements", int64(maxVisionElements))
			return false
		}
		n += e * t.N * t.K
	}
	return true
}

// bounded reports whether every named dimension lies in [1, maxVisionDim]
// (depths in [0, maxLayers]), failing on the first that does not in the
// order of their names, so that the same config gives the same error.
func bounded(vc *fields, dims map[string]int) bool {
	for _, k := range slices.Sorted(maps.Keys(dims)) {
		v := dims[k]
		hi, lo := maxVisionDim, 1
		if k == "depth" || k == "num_hidden_layers" || k == "num_global_layers" || k == "deepstack_visual_indexes" {
			hi, lo = maxLayers, 0
		}
		if v < lo || v > hi {
			vc.fail(k, "%d is out of range [%d, %d]", v, lo, hi)
			return false
		}
	}
	return true
}

// readSiglip reads a SigLIP vision_config (gemma3) into the tensors
// llama.cpp's mmproj holds.
func readSiglip(f, vc *fields, textHidden int) *Vision {
	h, inter, n := vc.int("hidden_size", 1152), vc.int("intermediate_size", 4304), vc.int("num_hidden_layers", 27)
	img, patch := vc.int("image_size", 896), max(vc.int("patch_size", 14), 1)
	if n > maxLayers || img > 1<<16 {
		vc.fail("num_hidden_layers", "out of range")
		return nil
	}
	b := newBuilder("v.blk.", "vision_tower.vision_model.encoder.layers.", 16*n+8)
	b.add("v.patch_embd", "vision_tower.vision_model.embeddings.patch_embedding", false, 0, h, 3*patch*patch, KindOther)
	b.add("v.patch_embd", "vision_tower.vision_model.embeddings.patch_embedding", true, 0, h, 1, KindVector)
	b.add("v.position_embd", "vision_tower.vision_model.embeddings.position_embedding", false, 0, (img/patch)*(img/patch), h, KindOther)
	for i := range n {
		b.layer = i
		emitSiglipLayer(b, h, inter)
	}
	b.layer = -1
	b.layerNorm("v.post_ln", "vision_tower.vision_model.post_layernorm", h)
	b.mat("mm.input_projection", "multi_modal_projector.mm_input_projection", textHidden, h, false)
	b.vec("mm.soft_emb_norm", "multi_modal_projector.mm_soft_emb_norm", h)
	return &Vision{Tensors: b.ts, ImageSize: img, PatchSize: patch, ImageTokens: f.int("mm_tokens_per_image", 256)}
}

func emitSiglipLayer(b *builder, h, inter int) {
	b.layerNorm("ln1", "layer_norm1", h)
	for _, p := range []string{"q", "k", "v"} {
		b.mat("attn_"+p, "self_attn."+p+"_proj", h, h, true)
	}
	b.mat("attn_out", "self_attn.out_proj", h, h, true)
	b.layerNorm("ln2", "layer_norm2", h)
	b.mat("ffn_up", "mlp.fc1", inter, h, true)
	b.mat("ffn_down", "mlp.fc2", h, inter, true)
}
