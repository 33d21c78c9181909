package planner

import "slices"

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

// VLLMGraphs counts the CUDA graphs vLLM captures (FULL_AND_PIECEWISE,
// the default mode) for o's capture options at max_num_seqs seqs and
// max_num_batched_tokens batched: a PIECEWISE graph at every capture size
// and a FULL decode graph at those up to max_num_seqs
// (CudagraphDispatcher.initialize_cudagraph_keys,
// vllm/v1/cudagraph_dispatcher.py). The sizes are
// VllmConfig._set_cudagraph_sizes' (vllm/config/vllm.py, v0.20.0's base,
// upstream 579602aa4): --cudagraph-capture-sizes less those over
// max_num_batched_tokens, or else 1, 2, 4, every 8 below 256 and every 16
// from 256, up to --max-cudagraph-capture-size (default min(2 ×
// max_num_seqs, 512)) and max_num_batched_tokens.
func VLLMGraphs(o *VLLMOptions, seqs, batched int) int64 {
	return vllmPiecewiseGraphs(o, seqs, batched) + vllmPiecewiseGraphs(o, seqs, min(seqs, batched))
}

// vllmPiecewiseGraphs counts the capture sizes up to top, the PIECEWISE
// graphs at top = max_num_batched_tokens, which a calibration's measured
// graph size is per.
func vllmPiecewiseGraphs(o *VLLMOptions, seqs, top int) int64 {
	if o.CaptureSizes != nil {
		return int64(countSizes(*o.CaptureSizes, top))
	}
	return int64(captureSizesTo(min(orDefaultInt(o.MaxCaptureSize, min(2*seqs, 512)), top)))
}

// countSizes counts the distinct sizes of s no larger than top, without
// allocating (s holds at most maxCaptureSizes).
func countSizes(s []int, top int) int {
	n := 0
	for i, v := range s {
		if v <= top && !slices.Contains(s[:i], v) {
			n++
		}
	}
	return n
}

// maxCaptureSizes bounds --cudagraph-capture-sizes: vLLM's own pattern has
// 51 sizes up to 512.
const maxCaptureSizes = 512

// validCaptureSizes checks o's capture options.
func validCaptureSizes(o *VLLMOptions) error {
	if err := inRange("serving.vllm.max_cudagraph_capture_size", o.MaxCaptureSize, 0, maxBatchLimit); err != nil {
		return err
	}
	if o.CaptureSizes == nil {
		return nil
	}
	s := *o.CaptureSizes
	if len(s) == 0 || len(s) > maxCaptureSizes {
		return bad("serving.vllm.cudagraph_capture_sizes", "%d sizes: give 1 to %d", len(s), maxCaptureSizes)
	}
	for _, v := range s {
		if err := inRange("serving.vllm.cudagraph_capture_sizes", v, 1, maxBatchLimit); err != nil {
			return err
		}
	}
	return nil
}

// captureSizesTo counts vLLM's CUDA-graph capture sizes up to top: 1, 2,
// 4, then every 8 to 256, then every 16.
func captureSizesTo(top int) int {
	n := 0
	for _, s := range []int{1, 2, 4} {
		if s <= top {
			n++
		}
	}
	for s := 8; s < 256 && s <= top; s += 8 {
		n++
	}
	for s := 256; s <= top; s += 16 {
		n++
	}
	return n
}

// vllmGraphCharge is the CUDA-graph memory 0.21 and later take out before
// the KV cache, and the graphs it is for: the calibration's measured graph
// size at every capture size where it has one, else the estimate.
func vllmGraphCharge(in *Input, l limits) (graphs int64, b Bytes) {
	if g := in.Calibration.GraphExec; g > 0 {
		graphs = vllmPiecewiseGraphs(&in.Serving.VLLM, l.batch, l.prefill)
		return graphs, satMul(graphs, int64(g))
	}
	return vllmGraphEstimate(in, l)
}

// vllmGraphEstimate is the estimate for the decoder layers of in's model
// (a rank's input holds its stage's share), with no measured graph size
// to go by.
func vllmGraphEstimate(in *Input, l limits) (graphs int64, b Bytes) {
	graphs = VLLMGraphs(&in.Serving.VLLM, l.batch, l.prefill)
	return graphs, satMul3(graphs, int64(in.Model.NumLayers()), int64(VLLMGraphLayerBytes))
}
