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

// vllmMRV2Activation is MRV2's profile peak: the larger of the forward
// pass over max_num_batched_tokens and, on the last stage, the sampler's
// rows × vocab × 6 B beside tokens × hidden × 4 B, or the vision encoder's
// profile when larger (vllmActivation).
func vllmMRV2Activation(in *Input, l limits) Bytes {
	text := satMul3(int64(l.prefill), int64(in.Model.HiddenSize), 4)
	if lastStage(in) {
		rows := int64(min(l.batch, l.prefill))
		text = satAdd(satMul(rows, int64(in.Model.VocabSize)*vllmMRV2SamplerEntry), text)
	}
	encoder, held := vllmEncoder(in, l)
	return max(encoder, satAdd(held, max(text, vllmV0Forward(in))))
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
