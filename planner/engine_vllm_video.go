package planner

import "math"

// This file is the dummy item vLLM's profile run encodes: an image of the
// largest size the processor makes (engine_vllm_vision.go) or, where a
// video counts more tokens per item, a video. The profile takes the
// modality with the most tokens per item
// (`mm_budget.get_modality_with_max_tokens()`, GPUModelRunner.profile_run).
//
// Qwen3-VL in vLLM 0.11 and 0.12 counts a video's tokens as its
// embeddings × 12.5 (vllm/model_executor/models/qwen3_vl.py,
// Qwen3VLProcessingInfo.get_max_video_tokens: `video_soft_tokens * 12.5`,
// "one video token is converted to "<{timestamp} seconds>" (on average 9.5
// tokens) + vision_start_token + video_token + vision_end_token"; a 0.11-era
// copy in a fork, the code index's file 56304064449, E18), so its video
// outranks its 16,384-embedding image at any max_model_len: the corpus's
// 0.11.0 and 0.12.0 logs print "a budget of 153600 tokens, and profiled
// with 1 video items", 12.5 × 12,288. A later vllm-project/vllm copy
// (commit 4f5768c) returns the embeddings alone, at most 12,288 against
// the image's 16,384, and the 0.13.0 log profiles an image at a
// max_model_len of 8,192, where the 0.12 form would have profiled a video
// of 151,250 tokens: the rule is 0.11–0.12's (vllmRules.videoTimestamps).
// Upstream, the × 12.5 came with PR #25557 (2025-09-28) and went with
// PR #30475 (2025-12-16), each just after the cut of 0.11.0 and 0.13.0 on
// main and each in that release by a cherry-pick (docs/architecture.md,
// "Engine releases").
//
//   - the video's frames: get_num_frames_with_most_features, the most
//     frames n (from 2) whose tokens stay within max_model_len, counted
//     up one frame at a time until the next would not
//     (Qwen2VLProcessingInfo._get_max_video_frames, one video), at most
//     VideoFrames; the frames the image's size, resized together to the
//     video processor's pixel budget (Qwen3VLProcessingInfo.
//     _get_vision_info: transformers' video smart_resize, `beta =
//     sqrt(num_frames * height * width / max_pixels)`, each side
//     floor(side / beta / factor) × factor, at least factor = patch ×
//     merge), frames padded to the temporal patch.
//   - what the profile holds: the encoder's output widened to the item's
//     tokens (`expanded = output.new_zeros((…, encoder_hidden_size))`,
//     profile_run, the 0.10–0.12-era forms: to the encoder budget or to the
//     modality's tokens per item, the same for one video), so the encoder
//     cache is 153,600 rows where the encoder returns 12,288; the dummy
//     batch's float32 pixels, one patch each, beside it.

// vllmItem is the dummy item vLLM encodes: the embeddings the encoder
// returns, the tokens the encoder budget counts for it and the encoder
// cache is widened to, and its patches.
type vllmItem struct {
	embeds, tokens, patches int64
	video                   bool
}

// vllmProfiledItem returns the item of the modality with the most tokens
// per item under in's release.
func vllmProfiledItem(in *Input, e *VisionEncoder, l limits) vllmItem {
	m := int64(e.Merge) * int64(e.Merge)
	img := vllmItem{embeds: int64(e.ItemTokens), tokens: int64(e.ItemTokens), patches: int64(e.ItemTokens) * m}
	if e.VideoPixels <= 0 || e.VideoFrames < 2 || !vllmRulesOf(in).videoTimestamps {
		return img
	}
	v := qwen3VLVideo(e, l.seqLen)
	if v.tokens > img.tokens {
		return v
	}
	return img
}

// qwen3VLVideo is the largest dummy video at max_model_len seqLen, its
// tokens 0.11–0.12's embeddings × 12.5 (see the file's header).
func qwen3VLVideo(e *VisionEncoder, seqLen int) vllmItem {
	n := 2
	// Counting up from 2 frames, the tokens peak at 3 (an odd count is
	// padded by a frame that the pixel budget does not pay for); from
	// there each video's pixels are the budget's, and past VideoFrames
	// the frames only grow: so the count stops at 2 or runs to the cap
	// (TestQwen3VLVideoFrames holds this to the count itself).
	if qwen3VLVideoPatches(e, 3) <= int64(seqLen)*int64(e.Merge)*int64(e.Merge) {
		n = e.VideoFrames
	}
	p := qwen3VLVideoPatches(e, n)
	embeds := p / (int64(e.Merge) * int64(e.Merge))
	return vllmItem{embeds: embeds, tokens: embeds * 25 / 2, patches: p, video: true}
}

// qwen3VLVideoPatches is the patches of n frames of the largest image's
// size, resized as Qwen3-VL's video processor resizes them.
func qwen3VLVideoPatches(e *VisionEncoder, n int) int64 {
	factor := float64(e.Patch * e.Merge)
	side := math.Sqrt(float64(e.ItemTokens)) * factor // the largest image, square
	t := int64(n + n%e.Temporal)
	if float64(t)*side*side > float64(e.VideoPixels) {
		beta := math.Sqrt(float64(n) * side * side / float64(e.VideoPixels))
		side = max(factor, math.Floor(side/beta/factor)*factor)
	}
	grid := int64(side) / int64(e.Patch)
	return t / int64(e.Temporal) * grid * grid
}
