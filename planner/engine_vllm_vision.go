package planner

// This file is vLLM's profile of a vision checkpoint (the V1 engine, 0.8
// and later). Before the text forward pass it profiles,
// GPUModelRunner.profile_run (vllm/v1/worker/gpu_model_runner.py) runs the
// vision encoder on a batch of dummy images of the largest size the
// processor makes (`_get_mm_dummy_batch`, then the model's
// `get_multimodal_embeddings`, `embed_multimodal` in a 0.12-era copy; the
// 0.10-era form in forks that copy it) and keeps their embeddings in
// the encoder cache (`self.encoder_cache["tmp"]`) while the text pass and
// the sampler's warm-up run; the cache is cleared after. The torch peak
// the KV cache is sized after is the larger of the encoder's forward pass
// and the text pass with what the encoder left beside it.
//
//   - the batch: max(1, min(max_num_seqs, budget ÷ item tokens)) items,
//     the budget max(max_num_batched_tokens, item tokens)
//     (vllm/v1/core/encoder_cache_manager.py, compute_mm_encoder_budget:
//     `max(max_num_encoder_input_tokens, max_tokens_per_mm_item)`, the
//     first defaulting to max_num_batched_tokens; MultiModalBudget's items
//     per batch, the images a prompt may carry taken as at least one).
//   - the encoder's peak, an estimate: a Qwen-VL block's MLP
//     (vllm/model_executor/models/qwen2_vl.py, Qwen2VisionBlock.forward:
//     `x = x + self.mlp(self.norm2(x))`; Qwen2VisionMLP.forward) holds, per
//     patch, the block's input and its norm (2 × width) beside the MLP's
//     first projection and its activation (2 × MLP ÷ TP, the projection
//     column-parallel), 16-bit; QuickGELU's unfused form (`x *
//     torch.sigmoid(1.702 * x)`, QuickGELU.forward_native) one MLP-wide
//     tensor more, which vLLM runs unless it runs eager
//     (vllm/model_executor/custom_op.py, CustomOp.default_on: "When PyTorch
//     Inductor is used, 'none' is the default value, otherwise 'all'").
//     Beside them the dummy batch's float32 pixels, channels × temporal ×
//     patch² per patch (the tower's 16-bit copy, Qwen2VisionTransformer.
//     forward's `x.to(device=self.device, dtype=self.dtype)`, is freed by
//     the patch embedding). The attention's rotary copies and the merger
//     are not counted: vllmVisionPeak says how far off that leaves it.
//     Copies of the attention differ (some hold contiguous q, k and v and
//     fp32 rotary copies of q and k, up to 19 width-wide tensors where
//     Qwen2-VL's MLP holds 14); the 0.10.2 start-up's 2.65 GiB bounds
//     that stage below the MLP's there. A tower whose MLP is narrower
//     against its width (Qwen3-VL's, 3.7 ×, one GELU) may peak in its
//     attention instead.
//   - beside the text pass: the cache, images × item tokens × the
//     embedding width (deepstack features included) × 2 B, and the dummy
//     batch's pixels (`batched_dummy_mm_inputs`, held to the function's
//     end).
//
// A checkpoint whose processor takes video as well is profiled on
// whichever modality has the most tokens per item
// (`mm_budget.get_modality_with_max_tokens()`): the video is modelled for
// Qwen3-VL's processor, whose video outranks its image in 0.11 and 0.12
// (engine_vllm_video.go); for other processors only the image is, and
// where vLLM profiles their video the plan charges less than it does.

// vllmVisionPeak is the estimate's error bound as the corpus supports it.
const vllmVisionPeak = "−6.6 % against the one Qwen2-VL start-up of the corpus that prints its peak; held to no Qwen3-VL figure"

// vllmEncoder returns the vision encoder's profiled peak and what it
// leaves beside the text pass: the encoder cache and the dummy batch's
// pixels, which profile_run holds until it returns. Both are 0 when in's
// model has no encoder to profile.
func vllmEncoder(in *Input, l limits) (peak, held Bytes) {
	e := vllmEncoderOf(in)
	if e == nil {
		return 0, 0
	}
	it := vllmProfiledItem(in, e, l)
	items := vllmEncoderItems(it, l)
	patches := int64(satMul(items, it.patches))
	cache := satMul3(int64(satMul(items, it.tokens)), int64(e.OutWidth), 2)
	return satMul(patches, vllmPatchBytes(in, e)), satAdd(cache, satMul(patches, vllmPixelBytes(e)))
}

// vllmPixelBytes is one patch of the dummy batch's float32 pixels.
func vllmPixelBytes(e *VisionEncoder) int64 {
	return int64(satMul(int64(satMul3(int64(e.Channels), int64(e.Temporal), int64(e.Patch))), int64(e.Patch)*4))
}

// vllmEncoderOf is in's vision encoder when vLLM profiles it: a checkpoint
// whose tower is loaded and whose encoder's shape is known.
func vllmEncoderOf(in *Input) *VisionEncoder {
	if v := in.Model.Vision; in.Features.Vision && v != nil {
		return v.Encoder
	}
	return nil
}

// vllmEncoderItems is the dummy batch's items (see the file's header).
func vllmEncoderItems(it vllmItem, l limits) int64 {
	budget := max(int64(l.prefill), it.tokens)
	return max(1, min(int64(l.batch), budget/max(it.tokens, 1)))
}

// vllmPatchBytes is what one patch holds at the encoder's peak.
func vllmPatchBytes(in *Input, e *VisionEncoder) int64 {
	tp := int64(rankTP(in))
	mlps := int64(2)
	if e.QuickGELU && !in.Serving.VLLM.EnforceEager {
		mlps = 3
	}
	return int64(satAdd(Bytes(vllmPixelBytes(e)), Bytes(2*(2*int64(e.Width)+mlps*ceilDiv(int64(e.MLP), tp)))))
}

// vllmEncoderDetail describes the encoder's share of the activation peak,
// "" when in's model has no encoder to profile.
func vllmEncoderDetail(in *Input, c *charges, l limits) string {
	e := vllmEncoderOf(in)
	if e == nil {
		return ""
	}
	peak, held := vllmEncoder(in, l)
	it := vllmProfiledItem(in, e, l)
	what, widened := "images", ""
	if it.video {
		what = "videos"
		widened = c.linef(" (the cache widened to the video's %d tokens)", it.tokens)
	}
	return c.join(c.linefs(", or more, the vision encoder on %d dummy %s of %d patches, %B a patch (float32 pixels, the block's input and norm, the MLP's tensors): %B, with its cache and pixels (%B) beside the text pass",
		what, vllmEncoderItems(it, l), it.patches, vllmPatchBytes(in, e), int64(peak), int64(held)),
		widened, " (an estimate: ", vllmVisionPeak, ")")
}

// vllmTowerBytes is what one rank holds of vision tower v: vLLM's towers
// build their projections as tensor-parallel layers
// (vllm/model_executor/models/qwen3_vl.py, Qwen3_VisionMLP and
// Qwen3_VisionPatchMerger: ColumnParallelLinear then RowParallelLinear,
// `disable_tp=use_data_parallel`, which is off unless mm_encoder_tp_mode
// is "data"; Qwen2_5_VisionAttention's QKVParallelLinear over the TP world
// size in qwen2_5_vl.py; 0.11-era copies, E18), so each
// rank holds 1/TP of SplitBytes and the rest (the patch convolution,
// position table, norms, biases) whole.
func vllmTowerBytes(in *Input, v *Vision) Bytes {
	split := min(max(v.SplitBytes, 0), v.Bytes)
	return v.Bytes - split + Bytes(ceilDiv(int64(split), int64(rankTP(in))))
}

// vllmTowerDetail describes the tower's charge: whole, or its projections
// split over the ranks.
func vllmTowerDetail(in *Input, c *charges) string {
	if tp := int64(rankTP(in)); tp > 1 && in.Model.Vision.SplitBytes > 0 {
		return c.linef("vision tensors, the projections' %B split over TP %d", int64(in.Model.Vision.SplitBytes), tp)
	}
	return "vision tensors"
}
