package arch

// This file reads the Qwen vision towers: Qwen2-VL's ViT (a bias-free 3-D
// patch convolution, LayerNorm blocks, one patch merger) and Qwen3-VL's,
// which Qwen3.5 shares (a biased patch convolution, a learned position
// table, blocks with a GELU MLP of intermediate_size, and a deepstack
// merger per deepstack_visual_indexes entry beside the final one). Shapes
// as Blaizzy/mlx-vlm loads the checkpoints (at 9b13f522:
// models/qwen2_vl/vision.py, models/qwen3_vl/vision.py), held to the
// published counts by TestParams. These towers take images at their own
// resolution, so config.json states no image size: ImageSize and
// ImageTokens stay 0. Their largest image is the processor's max_pixels
// (preprocessor_config.json, which config.json does not carry), so each
// family's default is taken: the encoder that vLLM profiles on it
// (encoder).

import (
	"strconv"

	"github.com/vramplan/vramplan/planner"
)

// qwenTower is what both towers share: width, depth, patch geometry and the
// merger's output width.
type qwenTower struct {
	width, depth, inter, out, channels, patch, temporal, merge, heads int
}

func (q *qwenTower) bounded(vc *fields) bool {
	return bounded(vc, map[string]int{"hidden_size": q.width, "depth": q.depth, "intermediate_size": q.inter,
		"out_hidden_size": q.out, "in_channels": q.channels, "patch_size": q.patch,
		"temporal_patch_size": q.temporal, "spatial_merge_size": q.merge, "num_heads": q.heads})
}

// The processors' max_pixels: Qwen2-VL's (and Qwen2.5-VL's)
// preprocessor_config.json "max_pixels" 12,845,056 (3,584²), Qwen3-VL's
// "size": {"longest_edge": 16,777,216} (4,096²). vLLM sizes its dummy image
// to them (Qwen2VLProcessingInfo.get_image_size_with_most_features), 16,384
// embeddings with 14- and 16-pixel patches merged 2 × 2, as its start-up
// logs print ("Encoder cache will be initialized with a budget of 16384
// tokens, and profiled with 1 image items").
const (
	qwen2MaxPixels = 12845056
	qwen3MaxPixels = 16777216
)

// Qwen3-VL's video processor bounds a video's pixels over all its frames,
// and vLLM's dummy video has at most 24,576 frames
// (vllm/model_executor/models/qwen3_vl.py, `_MAX_FRAMES_PER_VIDEO = 24576`
// under "Official recommended max pixels is 24576 * 32 * 32", the 25,165,824
// pixels; a 0.11-era copy, E18): the video vLLM 0.11 and 0.12 profile
// (engine_vllm_video.go).
const (
	qwen3VideoPixels = 24576 * 32 * 32
	qwen3VideoFrames = 24576
)

// encoder is the tower's shape as the engines profile it: images of at
// most maxPixels, embeddings outWidth wide, a QuickGELU MLP or a GELU one.
func (q *qwenTower) encoder(maxPixels, outWidth int, quick bool) *planner.VisionEncoder {
	tokens, side := 1, q.patch*q.merge // each at most 2^16: side fits an int
	if side*side <= maxPixels {
		tokens = maxPixels / (side * side)
	}
	return &planner.VisionEncoder{Width: q.width, Depth: q.depth, MLP: q.inter, Heads: q.heads, Patch: q.patch,
		Temporal: q.temporal, Channels: q.channels, Merge: q.merge, ItemTokens: tokens,
		OutWidth: outWidth, QuickGELU: quick}
}

// blocks emits the tower's transformer blocks: LayerNorms, fused QKV and
// output projections, and a two-layer MLP named fc1/fc2 (names).
func (q *qwenTower) blocks(b *builder, fc1, fc2 string) {
	h := q.width
	for i := range q.depth {
		b.layer = i
		b.layerNorm("ln1", "norm1", h)
		b.mat("attn_qkv", "attn.qkv", 3*h, h, true)
		b.mat("attn_out", "attn.proj", h, h, true)
		b.layerNorm("ln2", "norm2", h)
		b.mat("ffn_up", fc1, q.inter, h, true)
		b.mat("ffn_down", fc2, h, q.inter, true)
	}
	b.layer = -1
}

// readQwen2VLVision reads Qwen2-VL's vision_config: embed_dim wide, an MLP
// of mlp_ratio × embed_dim, and a merger of spatial_merge_size² patches
// into hidden_size (the language model's width).
func readQwen2VLVision(_, vc *fields, _ int) *Vision {
	e := vc.need("embed_dim")
	q := qwenTower{width: e, depth: vc.need("depth"), inter: int(min(vc.num("mlp_ratio", 4)*float64(e), maxInt)),
		out: vc.need("hidden_size"), channels: vc.int("in_chans", vc.int("in_channels", 3)),
		patch: vc.int("patch_size", vc.int("spatial_patch_size", 14)), temporal: vc.int("temporal_patch_size", 2),
		merge: vc.int("spatial_merge_size", 2), heads: vc.int("num_heads", 16)}
	if !q.bounded(vc) {
		return nil
	}
	b := newBuilder("v.blk.", "visual.blocks.", 12*q.depth+8)
	b.add("v.patch_embd", "visual.patch_embed.proj", false, 0, e, q.channels*q.temporal*q.patch*q.patch, KindOther)
	q.blocks(b, "mlp.fc1", "mlp.fc2")
	merged := e * q.merge * q.merge
	b.layerNorm("mm.norm", "visual.merger.ln_q", e)
	b.mat("mm.up", "visual.merger.mlp.0", merged, merged, true)
	b.mat("mm.down", "visual.merger.mlp.2", q.out, merged, true)
	return &Vision{Tensors: b.ts, PatchSize: q.patch, Encoder: q.encoder(qwen2MaxPixels, q.out, quickGELU(vc, "quick_gelu")), TPSplit: true}
}

// readQwen3VLVision reads Qwen3-VL's (and Qwen3.5's) vision_config, under
// model.visual as their checkpoints name it (Qwen2-VL's is top-level visual).
func readQwen3VLVision(_, vc *fields, _ int) *Vision {
	q := qwenTower{width: vc.need("hidden_size"), depth: vc.need("depth"), inter: vc.need("intermediate_size"),
		out: vc.need("out_hidden_size"), channels: vc.int("in_channels", 3), patch: vc.need("patch_size"),
		temporal: vc.int("temporal_patch_size", 2), merge: vc.int("spatial_merge_size", 2), heads: vc.int("num_heads", 16)}
	pos, deep := vc.int("num_position_embeddings", 0), vc.count("deepstack_visual_indexes")
	if !q.bounded(vc) || !bounded(vc, map[string]int{"deepstack_visual_indexes": deep}) {
		return nil
	}
	if pos > maxVisionDim*maxVisionDim/q.width {
		vc.fail("num_position_embeddings", "%d is out of range", pos)
		return nil
	}
	h := q.width
	v := "model.visual."
	b := newBuilder("v.blk.", v+"blocks.", 12*q.depth+8*deep+12)
	b.mat("v.patch_embd", v+"patch_embed.proj", h, q.channels*q.temporal*q.patch*q.patch, true)
	b.add("v.position_embd", v+"pos_embed", false, 0, pos, h, KindOther)
	q.blocks(b, "mlp.linear_fc1", "mlp.linear_fc2")
	q.merger(b, v+"merger.", h)
	for i := range deep {
		q.merger(b, v+"deepstack_merger_list."+strconv.Itoa(i)+".", h*q.merge*q.merge)
	}
	e := q.encoder(qwen3MaxPixels, q.out*(1+deep), quickGELU(vc, "gelu_pytorch_tanh"))
	e.VideoPixels, e.VideoFrames = qwen3VideoPixels, qwen3VideoFrames
	return &Vision{Tensors: b.ts, PatchSize: q.patch, Encoder: e, TPSplit: true}
}

// quickGELU reports whether vc's hidden_act, def when it names none, is
// QuickGELU (Qwen2-VL's default; Qwen3-VL's is gelu_pytorch_tanh).
func quickGELU(vc *fields, def string) bool {
	act := vc.str("hidden_act")
	if act == "" {
		act = def
	}
	return act == "quick_gelu"
}

// merger emits a Qwen3-VL patch merger under prefix m: a LayerNorm of norm
// elements (the patch width, or the merged width for a deepstack merger)
// and two linear layers from the merged width to out_hidden_size.
func (q *qwenTower) merger(b *builder, m string, norm int) {
	merged := q.width * q.merge * q.merge
	b.layerNorm("mm.norm", m+"norm", norm)
	b.mat("mm.up", m+"linear_fc1", merged, merged, true)
	b.mat("mm.down", m+"linear_fc2", q.out, merged, true)
}
