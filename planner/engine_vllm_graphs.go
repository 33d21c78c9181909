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
// decoder layer: the median, over the corpus's plannable vLLM runs that
// print the estimate profile_cudagraph_memory returned (0.18's
// "Estimated CUDA graph memory", or 0.21's "--gpu-memory-utilization=U is
// equivalent to --gpu-memory-utilization=V", (U − V) × the card's total;
// vllm/v1/worker/gpu_worker.py), of that estimate over their graphs
// (VLLMGraphs) times their decoder layers per rank. The corpus test
// TestGraphLayerBytes recomputes it, and its spread,
// VLLMGraphLayerLow to VLLMGraphLayerHigh. Estimated: vLLM's own figure is
// a first capture (the shared pool's baseline) plus the second capture's
// cost times the graphs left, and the corpus's runs capture too few graph
// counts to tell the two terms apart (docs/engine-results.md).
const VLLMGraphLayerBytes = 166 * KiB

// VLLMGraphLayerLow and VLLMGraphLayerHigh are the least and the greatest
// of the runs VLLMGraphLayerBytes is the median of.
const (
	VLLMGraphLayerLow  = 154 * KiB
	VLLMGraphLayerHigh = 796 * KiB
)

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
