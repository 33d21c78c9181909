package planner

// This file is vLLM's Model Runner V2 (MRV2, vllm/v1/worker/gpu/), planned
// when a log says it ran (VLLMOptions.ModelRunnerV2): its profile run and
// the sampler state it keeps, which differ from V1's runner
// (gpu_model_runner.py) in two ways that size the KV cache
// (docs/engine-results.md, "The MRV2 pass, read in source"):
//
//   - the profile samples its dummy rows with no sampling parameters, so
//     neither top-k nor top-p runs: the logits (16-bit) and their float32
//     copy, 6 B per row and vocabulary entry, against V1's warm-up of 14 or
//     38 B (vllmSamplerEntry); the forward pass over max_num_batched_tokens,
//     which V1's sampler outweighs, is then the larger term for a large
//     model (vllmV0Forward's estimate).
//   - the sampler's penalties state keeps a [max_num_seqs, vocab] int32 tensor
//     of output-token counts and two bit masks, allocated when the runner is
//     built, after the worker's first memory snapshot and before the profile:
//     the later releases' accounting counts them in "consumed memory", beside
//     the weights, on the last pipeline stage, where the sampler lives.

// VLLMModelRunnerV2 is the line vLLM's worker logs when it builds Model
// Runner V2 (vllm/v1/worker/gpu_worker.py, Worker.init_device).
const VLLMModelRunnerV2 = "Using V2 Model Runner"

// vllmMRV2 reports whether in is planned by Model Runner V2's rules: a V1
// release whose log says MRV2 ran.
func vllmMRV2(in *Input, r *vllmRules) bool {
	return in.Serving.VLLM.ModelRunnerV2 && !r.v0
}

// vllmMRV2SamplerEntry is MRV2's profiled sampler per row and vocabulary
// entry: the model's 16-bit logits and the float32 copy Sampler.sample
// makes of them (vllm/v1/worker/gpu/sample/sampler.py).
const vllmMRV2SamplerEntry = 6

// vllmMRV2Sampler is MRV2's profiled sampler over rows rows of logits,
// vllmMRV2SamplerEntry bytes per row and vocabulary entry; its profile
// peak is the larger of that beside tokens × hidden × 4 B and the forward
// pass over max_num_batched_tokens (vllmActivation).
func vllmMRV2Sampler(in *Input, rows int64) Bytes {
	return satMul(rows, int64(in.Model.VocabSize)*vllmMRV2SamplerEntry)
}

// vllmMRV2State is the sampler state MRV2 keeps on the last stage:
// PenaltiesState's output_bin_counts (max_num_seqs × vocab int32) and
// prompt_bin_mask, and StructuredOutputsWorker's grammar_bitmask (each
// max_num_seqs × ⌈vocab ÷ 32⌉ int32), none otherwise.
func vllmMRV2State(in *Input, l limits) Bytes {
	if !lastStage(in) {
		return 0
	}
	v := int64(in.Model.VocabSize)
	return satMul(int64(l.batch), 4*(v+2*ceilDiv(v, 32)))
}
