package planner

// This file is vLLM V1's sampler warm-up, the largest share of its
// profiled activation peak for a small model: the profile run ends by
// sampling one row of logits per dummy request, over the whole
// vocabulary, and the peak of that step depends on which top-k/top-p
// implementation the engine took at start, which its log says.

// vllmSamplerBytes is the sampler's warm-up over rows rows of logits:
// vllmSamplerEntry bytes per row and vocabulary entry. V1's dummy run and
// V0's profile run both sample with top-k and top-p over the whole
// vocabulary. On the Triton path the kernel adds buf rows of float32
// vocabulary, a buffer apply_top_k_top_p_triton allocates once and
// caches: one row per program, min(rows, SMs) programs rounded up to a
// power of two and at most the SM count; a calibration without an SM
// count is charged none.
func vllmSamplerBytes(in *Input, rows int64) Bytes {
	v, e := int64(in.Model.VocabSize), vllmSamplerEntry(in, rows)
	sm, buf := int64(in.Calibration.SMCount), int64(0)
	if sm > 0 && vllmTritonSampler(in, rows) {
		buf = 1
		for buf < min(rows, sm) {
			buf *= 2
		}
		buf = min(buf, sm)
	}
	return satMul(v, rows*e+buf*4) // rows ≤ limits.max_batch (2^20), buf ≤ 2 × rows
}

// VLLMFlashInferSampler is the line vLLM V1 logs when TopKTopPSampler
// takes FlashInfer's kernel (vllm/v1/sample/ops/topk_topp_sampler.py,
// TopKTopPSampler.__init__).
const VLLMFlashInferSampler = "Using FlashInfer for top-p & top-k sampling."

// vllmSamplerEntry is the warm-up's peak per row and vocabulary entry,
// the model-dtype logits included: measured on an H200
// (scripts/vllm/sampler_peak.py; planner/testdata/engines/vllm-sampler)
// as the same at 256 and 1024 rows and vocabularies of 128,256 to 201,088.
// GPUModelRunner._dummy_sampler_run holds bf16 logits (2 B) and samples
// them with temperature 0.5, top-p 0.9 and top-k vocab − 1, no min-p,
// penalties or logprobs (vllm/v1/worker/gpu_model_runner.py, 0.10-era
// copy); Sampler.forward casts them to float32 (vllm/v1/sample/sampler.py).
// The torch-native apply_top_k_top_p sorts every row (values and int64
// indices), masks, takes a softmax and its cumulative sum, and scatters
// back into a new tensor: 38.0 B in all. FlashInfer's
// top_k_top_p_sampling_from_logits (top_k_first) makes a masked copy and
// its softmax: 14.0 B, its Python wrapper's tensors (the kernels' own
// workspace, if any, was not measured; the four corpus runs that log
// FlashInfer then land at −2.9 … −0.5 % in KV tokens). V1 takes FlashInfer's path where flashinfer is
// installed from 0.9.0.1 (PR #15777 adapted to its 0.2.3 API, 2025-05-16,
// after 0.9.0's cut; 0.8 falls back to the native path for flashinfer 0.2.3
// and later, PR #14815) to 0.11.0, and only on VLLM_USE_FLASHINFER_SAMPLER=1
// from 0.11.1 (PR #26859); the pip wheel installs flashinfer only from
// 0.11.1 (PR #26443), the Docker image always (docs/architecture.md,
// "Engine releases", pins each to its release). So the native path is the
// default and the log decides.
//
// From 0.17 (vllmRules.tritonSampler; PR #33538, 2026-02-17, which brought
// the kernel and its 8-row gate together) the native path hands a batch of 8
// rows or more to the Triton kernel (vllm/v1/sample/ops/topk_topp_sampler.py,
// apply_top_k_top_p: `if HAS_TRITON and logits.shape[0] >= 8`), which masks
// the float32 logits in place (vllm/v1/sample/ops/topk_topp_triton.py,
// apply_top_k_top_p_triton), so the warm-up holds what FlashInfer's does,
// the logits, their float32 copy, the softmax and the noise: 14 B, beside
// the kernel's buffer (vllmSamplerBytes).
func vllmSamplerEntry(in *Input, rows int64) int64 {
	if in.Serving.VLLM.FlashInferSampler || vllmTritonSampler(in, rows) {
		return 14
	}
	return 38
}

// vllmTritonSampler reports whether the warm-up over rows rows takes the
// native path's Triton kernel: from 0.17, for 8 rows or more, when
// FlashInfer's sampler is not the one (vllmSamplerEntry).
func vllmTritonSampler(in *Input, rows int64) bool {
	return !in.Serving.VLLM.FlashInferSampler && rows >= 8 && vllmRulesOf(in).tritonSampler
}

// vllmSamplerPath names the top-k/top-p path the warm-up is charged for.
func vllmSamplerPath(in *Input, rows int64) string {
	if in.Serving.VLLM.FlashInferSampler {
		return "FlashInfer sampler"
	}
	if vllmTritonSampler(in, rows) {
		return "Triton sampler + per-SM buffer"
	}
	return "torch-native sampler"
}
