package planner

// This file is llama.cpp's layer split (-sm layer, the default with more
// than one device): each device takes a contiguous run of layers by its
// share of -ts, and the output layer is placed as one more layer. Read
// from llama.cpp's src/llama-model.cpp, llama_model::load_tensors at the
// profile's b12072, 81ff7abe (the same code as at a5410f04): the shares
// are made cumulative and normalised (splits[i] = Σ_{j≤i} ts[j] / Σ ts),
// and layer il of n_layer + 1 (the output layer is il = n_layer) goes to
// device upper_bound(splits, il / (n_layer + 1)), with every layer
// offloaded (i_gpu_start = 0, act_gpu_layers = n_layer + 1); the input
// embedding stays on the CPU. The arithmetic is llama.cpp's float32.
// Each device then holds the KV of its own layers (llama-kv-cache.cpp
// allocates a layer's cache on the layer's device).

import (
	"math"
	"strconv"
	"strings"
)

// llamaSplit reports whether p is a llama.cpp layer split.
func (p *Parallel) llamaSplit() bool { return len(p.TensorSplit) > 0 }

// stageRange returns stage's first and one-past-last layer of n: by
// llama.cpp's layer split, or by vLLM's get_pp_indices (stageLayers).
func (p *Parallel) stageRange(n, stage int) (start, end int) {
	if !p.llamaSplit() {
		return stageLayers(n, p.pp(), stage)
	}
	start = n
	for il := 0; il < n; il++ {
		if d := p.llamaDevice(il, n); d == stage {
			start, end = min(start, il), il+1
		}
	}
	return min(start, end), end
}

// outputStage is the stage that holds the output layer (the LM head).
func (p *Parallel) outputStage(n int) int {
	if !p.llamaSplit() {
		return p.pp() - 1
	}
	return p.llamaDevice(n, n)
}

// llamaDevice is the device of layer il of n repeating layers (il = n is
// the output layer): load_tensors' upper_bound over the cumulative shares.
func (p *Parallel) llamaDevice(il, n int) int {
	var sum float32
	for _, s := range p.TensorSplit {
		sum += float32(s)
	}
	x := float32(il) / float32(n+1)
	var acc float32
	for d, s := range p.TensorSplit {
		acc += float32(s)
		if acc/sum > x {
			return d
		}
	}
	return len(p.TensorSplit) - 1
}

// defaultTensorSplit gives a llama.cpp layout of more than one stage
// equal shares, as llama.cpp splits by each device's free memory and the
// layout's devices are alike (or the input's per-rank budgets say
// otherwise: set tensor_split).
func defaultTensorSplit(in *Input) {
	p := &in.Parallel
	if p.pp() > 1 && p.tp() == 1 && len(p.TensorSplit) == 0 {
		p.TensorSplit = make([]float64, p.pp())
		for i := range p.TensorSplit {
			p.TensorSplit[i] = 1
		}
	}
}

// validateTensorSplit checks -ts: llama.cpp's, one positive share per
// stage, with no tensor or expert parallelism, every stage given a layer.
func validateTensorSplit(in *Input) error {
	p := &in.Parallel
	ts := p.TensorSplit
	if len(ts) == 0 {
		return nil
	}
	switch {
	case in.Serving.Engine != EngineLlamaCpp:
		return bad("parallel.tensor_split", "llama.cpp's -ts needs the llama.cpp engine profile (serving.engine llama.cpp)")
	case p.tp() > 1 || p.ep() > 1:
		return bad("parallel.tensor_split", "llama.cpp's layer split has no tensor or expert parallelism (tensor_parallel %d, expert_parallel %d)", p.tp(), p.ep())
	case len(ts) != p.pp():
		return bad("parallel.tensor_split", "%d shares for %d pipeline stages (one per device)", len(ts), p.pp())
	}
	for i, s := range ts {
		if !(s > 0) || math.IsInf(s, 0) || s > 1e6 {
			return bad("parallel.tensor_split", "share %d is %v: want a positive number up to 1e6", i, s)
		}
	}
	n := in.Model.NumLayers()
	for st := range ts {
		if a, b := p.stageRange(n, st); a >= b {
			return bad("parallel.tensor_split", "device %d gets no layer of %d (its share %v is too small)", st, n, ts[st])
		}
	}
	return nil
}

// llamaSplitLaunch states a llama.cpp layout in its launch command: -sm
// layer -ts, and -ngl counting the layers of every device. A layout with
// tensor parallelism has no llama.cpp flag here: b12072's CUDA backend has
// no row split (#24216, 74976e1a, removed ggml_backend_cuda_split_buffer_type,
// and src/llama-model.cpp's make_gpu_buft_list throws for -sm row), and its
// -sm tensor (a meta device over the GPUs, llama_meta_device_get_split_state)
// is experimental and not planned.
func llamaSplitLaunch(e *EngineReport, p *Parallel, n int) {
	if !p.llamaSplit() {
		e.Notes = append(e.Notes, LlamaCppVersion+" splits a layer across GPUs only with its experimental -sm tensor, "+
			"which is not planned (its -sm row is gone on CUDA: loading fails with \"does not support split buffers\"): "+
			"this layout is planned by vLLM's rules, so the launch command names no split")
		return
	}
	shares := make([]string, len(p.TensorSplit))
	for i, s := range p.TensorSplit {
		shares[i] = strconv.FormatFloat(s, 'g', -1, 64)
	}
	a := e.LlamaCpp
	if a != nil && a.FullOffload {
		e.Launch = strings.Replace(e.Launch, " -ngl "+strconv.Itoa(a.GPULayers), " -ngl "+strconv.Itoa(n+1), 1)
		a.Layers, a.GPULayers, a.LayersThatFit = n+1, n+1, n+1 // -ngl counts every device's layers
	} else {
		e.Notes = append(e.Notes, "a device that cannot hold its layers: llama.cpp would offload fewer layers "+
			"(-ngl counts every device's), which this layout does not plan")
	}
	e.Launch += " -sm layer -ts " + strings.Join(shares, ",")
}
