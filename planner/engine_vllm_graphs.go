package planner

// This file is vLLM's CUDA-graph estimate from 0.21 on, where the
// calibration has no measured graph size: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS
// defaults to 1 ("Enabled by default as of v0.21.0", vllm/envs.py), and
// Worker.determine_available_memory (vllm/v1/worker/gpu_worker.py) takes
// GPUModelRunner.profile_cudagraph_memory's estimate out of the KV cache's
// memory unless cudagraph_mode is NONE (--enforce-eager). The estimate
// captures the first two graphs of each mode and extrapolates over the
// rest (vllm/v1/worker/gpu_model_runner.py; code-index copies, not read at
// a tag, E18). Earlier releases capture after sizing the KV cache, outside
// the budget (vllmGraphsOutside).

// VLLMGraphLayerBytes is the estimate's memory per captured graph and
// decoder layer: the median, over the corpus's vLLM runs from 0.11 on
// that print what their capture took, of that figure over their graphs
// (VLLMGraphs) times their decoder layers per rank; the corpus test
// TestGraphLayerBytes recomputes it. Estimated: the runs spread over
// vllmGraphLayerSpread, so a plan's graph charge can be off by its own size.
const VLLMGraphLayerBytes = 186 * KiB

// vllmGraphLayerSpread is the range of the runs VLLMGraphLayerBytes is
// the median of, as the estimate's detail says it.
const vllmGraphLayerSpread = "0 to about 830 KiB"

// VLLMGraphs counts the CUDA graphs vLLM captures by default
// (FULL_AND_PIECEWISE): a PIECEWISE graph at every capture size up to
// min(2 × max_num_seqs, 512, max_num_batched_tokens)
// (VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py) and a FULL decode
// graph at those up to max_num_seqs
// (CudagraphDispatcher.initialize_cudagraph_keys,
// vllm/v1/cudagraph_dispatcher.py).
func VLLMGraphs(seqs, batched int) int64 {
	top := min(2*seqs, 512, batched)
	return int64(captureSizesTo(top) + captureSizesTo(min(seqs, top)))
}

// vllmGraphCharge is the CUDA-graph memory 0.21 and later take out before
// the KV cache, and the graphs it is for: the calibration's measured graph
// size at every capture size where it has one, else the estimate.
func vllmGraphCharge(in *Input, l limits) (graphs int64, b Bytes) {
	if g := in.Calibration.GraphExec; g > 0 {
		graphs = int64(captureSizes(l.batch))
		return graphs, satMul(graphs, int64(g))
	}
	return vllmGraphEstimate(in, l)
}

// vllmGraphEstimate is the estimate for the decoder layers of in's model
// (a rank's input holds its stage's share), with no measured graph size
// to go by.
func vllmGraphEstimate(in *Input, l limits) (graphs int64, b Bytes) {
	graphs = VLLMGraphs(l.batch, l.prefill)
	return graphs, satMul3(graphs, int64(in.Model.NumLayers()), int64(VLLMGraphLayerBytes))
}
