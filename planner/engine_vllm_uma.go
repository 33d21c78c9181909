package planner

import "github.com/vramplan/vramplan/internal/printf"

// This file is vLLM on a GPU whose memory is the host's
// (Calibration.UnifiedMemory: the GB10 of the DGX Spark, Jetson Orin and
// Thor). Three rules differ from a discrete card's:
//
//   - batch defaults. EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py)
//     sizes them by current_platform.get_device_total_memory(), which on CUDA
//     is NVML's nvmlDeviceGetMemoryInfo (vllm/platforms/cuda.py,
//     NvmlCudaPlatform.get_device_total_memory). NVML reports no memory on a
//     unified-memory device, the call raises, and the except branch sets
//     device_memory = 0: a 119.70 GiB GB10 gets the small GPU's max_num_seqs
//     256 and max_num_batched_tokens 2048 (bigGPU). The corpus's four vLLM
//     0.13.0 GB10 logs print "Chunked prefill is enabled with
//     max_num_batched_tokens=2048" with no such flag given, 8192 on a big
//     GPU, and the two that capture CUDA graphs capture full decode graphs
//     at 35 sizes, up to 256 (GPUModelRunner.capture_model stops them at
//     max_num_seqs; 1024 would give all 51).
//   - free memory. MemorySnapshot.measure (vllm/utils/mem_utils.py) takes the
//     free memory as psutil.virtual_memory().available, the host's
//     MemAvailable, on compute capability 8.7, 11.0 and 12.1 (Orin, Thor,
//     Spark; from vLLM PR #35356, after 0.13, on every device whose
//     is_integrated is set), and Worker.init_device refuses to start when
//     that is less than total × gpu_memory_utilization (request_memory).
//   - non-torch memory. memory_profiling's non_torch_increase is the growth
//     of (total − free) − torch's reserved memory from that first snapshot to
//     the end of the profile run. With free the host's, it counts every byte
//     the host took meanwhile: other processes', and vLLM's own host side, a
//     torch.compile that is not cached among them (vLLM issue #35920, "UMA
//     Memory Profiling Misattributes OS Page Cache", DGX Spark). A start-up
//     log prints neither figure, so both are the user's
//     (VLLMOptions.HostStartBytes and HostUsedBytes), 0 when not given, and
//     the plan says what it assumed (vllmUMANotes).

// vllmUMA reports whether in's GPU shares its memory with the host.
func vllmUMA(in *Input) bool { return in.Calibration.UnifiedMemory }

// vllmNonTorch is the memory vLLM counts outside torch: the log's figure
// when given, else the estimate at TP 1 and, on a unified-memory GPU, what
// the host takes during the start.
func vllmNonTorch(in *Input) Bytes {
	o := &in.Serving.VLLM
	if o.NonTorchBytes > 0 {
		return o.NonTorchBytes
	}
	if vllmUMA(in) {
		return satAdd(vllmNonTorchEstimate, o.HostStartBytes)
	}
	return vllmNonTorchEstimate
}

// vllmNonTorchEstimate is the memory outside torch at TP 1 (cuBLAS, NCCL,
// allocator slack; llm-d's planner constant).
const vllmNonTorchEstimate = GiB * 15 / 100

// vllmNonTorchDetail says how the non-torch figure was made.
func vllmNonTorchDetail(in *Input, c *charges) string {
	const base = "estimated: 0.15 GiB at TP 1 (cuBLAS, NCCL, allocator slack)"
	if !vllmUMA(in) {
		return base
	}
	return c.join(base, c.linef(" + %B the host takes during the start (serving.vllm.host_start_bytes; unified memory)",
		int64(in.Serving.VLLM.HostStartBytes)))
}

// vllmUMANotes says what a plan on a unified-memory GPU assumed of the
// host, and notes a start vLLM refuses: the host's available memory when
// vLLM takes its first snapshot (total less HostUsedBytes and vLLM's own
// CUDA context, made before it) under the budget.
func vllmUMANotes(in *Input, r *EngineReport, budget Bytes) {
	if !vllmUMA(in) {
		return
	}
	o := &in.Serving.VLLM
	r.Notes = append(r.Notes, printf.Sprintf("the GPU's memory is the host's: vLLM reads the host's available memory as free, and counts "+
		"what the host takes during its start (other processes, a torch.compile not cached) as its own non-torch memory; "+
		"the plan assumes %s taken (serving.vllm.host_start_bytes) and %s in use at start (serving.vllm.host_used_bytes)",
		o.HostStartBytes, o.HostUsedBytes))
	if free := in.Calibration.DeviceTotal - o.HostUsedBytes - in.Calibration.Context; free < budget {
		r.Notes = append(r.Notes, printf.Sprintf("the host's available memory at start (%s) is less than the budget (%s): "+
			"vLLM refuses to start", free, budget))
	}
}
