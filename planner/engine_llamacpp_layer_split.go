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
	"slices"
	"strconv"
	"strings"
)

// llamaSplit reports whether p is a llama.cpp layer split (-ts without
// tensor parallelism; with it, -ts is -sm tensor's: engine_llamacpp_tensor_split.go).
func (p *Parallel) llamaSplit() bool { return len(p.TensorSplit) > 0 && p.tp() == 1 }

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

// llamaOffload is load_tensors' i_gpu_start and act_gpu_layers for n
// repeating layers at the split's -ngl: the first start layers stay on the
// CPU, and the act layers after them (the output layer last) are split.
func (p *Parallel) llamaOffload(n int) (start, act int) {
	act = p.ngl
	if act <= 0 || act > n+1 {
		act = n + 1
	}
	return n + 1 - act, act
}

// llamaDevice is the device of layer il of n repeating layers (il = n is
// the output layer), -1 for a layer left on the CPU: load_tensors'
// upper_bound over the cumulative shares of (il − i_gpu_start) / act_gpu_layers.
func (p *Parallel) llamaDevice(il, n int) int {
	start, act := p.llamaOffload(n)
	if il < start {
		return -1
	}
	var sum float32
	for _, s := range p.TensorSplit {
		sum += float32(s)
	}
	x := float32(il-start) / float32(act)
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
	if p.llamaSplit() {
		p.ngl = in.Serving.LlamaCpp.GPULayers
	}
}

// validateTensorSplit checks -ts: llama.cpp's, one positive share per
// stage, with no tensor or expert parallelism, every stage given a layer.
func validateTensorSplit(in *Input) error {
	p := &in.Parallel
	ts := p.TensorSplit
	if llamaTensor(in) {
		return nil // -sm tensor's shares: validateLlamaTensor
	}
	if len(ts) == 0 {
		if in.Serving.Engine == EngineLlamaCpp && p.pp() > 1 && p.tp() == 1 {
			t := *in // the equal shares normalizeEngine will give it
			defaultTensorSplit(&t)
			return validateStages(&t)
		}
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
	return validateStages(in)
}

// validateStages checks that every device of a llama.cpp layer split gets
// a repeating layer at the input's -ngl.
func validateStages(in *Input) error {
	p := &in.Parallel
	p.ngl = in.Serving.LlamaCpp.GPULayers
	n := in.Model.NumLayers()
	_, act := p.llamaOffload(n)
	for st, share := range p.TensorSplit {
		if a, b := p.stageRange(n, st); a >= b {
			if act <= n {
				return bad("parallel.tensor_split", "device %d gets no repeating layer of the %d that -ngl %d offloads "+
					"(its share is %v)", st, act, act, share)
			}
			return bad("parallel.tensor_split", "device %d gets no layer of %d (its share %v is too small)", st, n, share)
		}
	}
	return nil
}

// llamaSplitLaunch states a llama.cpp layout in its launch command: -sm
// layer -ts, and -ngl counting the layers of every device (all of them, or
// the input's -ngl, whose first layers stay on the CPU: the first device's
// plan lists them in host memory). A layout with tensor parallelism is -sm
// tensor (engine_llamacpp_tensor_split.go), never -sm row: b12072's CUDA backend has no row
// split (#24216, 74976e1a, removed ggml_backend_cuda_split_buffer_type, and
// src/llama-model.cpp's make_gpu_buft_list throws for -sm row). rin is the
// device's input, m the whole model.
func llamaSplitLaunch(e *EngineReport, rin *Input, m *Model) {
	r := rin.Rank
	p := &r.Layout
	if p.tp() > 1 {
		llamaTensorLaunch(e, rin, m)
		return
	}
	if !p.llamaSplit() {
		e.Notes = append(e.Notes, LlamaCppVersion+" has no data or expert parallelism of its own: "+
			"this layout is planned by vLLM's rules, so the launch command names no split")
		return
	}
	n := m.NumLayers()
	start, act := p.llamaOffload(n)
	shares := make([]string, len(p.TensorSplit))
	for i, s := range p.TensorSplit {
		shares[i] = strconv.FormatFloat(s, 'g', -1, 64)
	}
	if e.LaunchAsAsked != "" { // the device's own -ngl: the layout's is the layout's (llamaOffloadNote)
		e.Launch, e.LaunchAsAsked = e.LaunchAsAsked, ""
		e.Notes = slices.DeleteFunc(e.Notes, func(s string) bool { return strings.HasPrefix(s, "as asked, -ngl ") })
	}
	if a := e.LlamaCpp; a != nil {
		e.Launch = strings.Replace(e.Launch, " -ngl "+strconv.Itoa(a.GPULayers), " -ngl "+strconv.Itoa(act), 1)
		a.Layers, a.GPULayers = n+1, act // -ngl counts every device's layers
		if a.FullOffload {
			a.LayersThatFit = act
		}
		a.FullOffload = a.FullOffload && start == 0
	}
	if start > 0 && r.Stage == 0 {
		whole := *rin
		whole.Model, whole.Rank = *m, nil
		whole.Serving.LlamaCpp.GPULayers = act
		cells := cellsOf(&whole, resolve(&whole.Limits))
		e.Host = llamaHostLayers(e.Host, &whole, &cells, start)
	}
	llamaSplitHost(e, r)
	e.Launch += " -sm layer -ts " + strings.Join(shares, ",")
}

// llamaDev is the index of in's GPU among llama.cpp's devices: its stage
// in a layer split, 0 for one GPU. llama.cpp names a device and its
// buffers CUDA0, CUDA1, … in that order (ggml/src/ggml-cuda/ggml-cuda.cu,
// ggml_backend_cuda_buffer_type: GGML_CUDA_NAME + the device), as its log
// lines ("CUDA1 model buffer size") and common_memory_breakdown_print
// (common/fit.cpp) show them.
func llamaDev(in *Input) int64 {
	if r := in.Rank; r != nil && r.Layout.llamaSplit() {
		return int64(r.Stage)
	}
	if llamaTensorRank(in) { // -sm tensor: the meta device's devices in rank order
		return int64(in.Rank.Ranks[0])
	}
	return 0
}

// llamaModelBuffer is the name of in's model buffer: CUDA0's without
// formatting, as one GPU's plan is the one whose allocations count.
func llamaModelBuffer(in *Input) string {
	if d := llamaDev(in); d != 0 {
		return linef("CUDA%d model buffer", d)
	}
	return "CUDA0 model buffer"
}

// llamaSplitOutput reports whether in is a device of a layer split that
// does not hold the output layer, and the device that does.
func llamaSplitOutput(in *Input) (elsewhere bool, dev int64) {
	r := in.Rank
	if r == nil || !r.Layout.llamaSplit() {
		return false, 0
	}
	last := r.Layout.pp() - 1
	return r.Stage != last, int64(last)
}

// llamaWeightsDetail says what in's model buffer holds: a split's device
// its run of layers, the last device the output layer too.
func llamaWeightsDetail(in *Input) string {
	r := in.Rank
	if llamaTensorRank(in) {
		return llamaTensorWeightsDetail(in)
	}
	if r == nil || !r.Layout.llamaSplit() {
		layers, _ := gpuLayers(in)
		return linef("%d of %d repeating layers and the output layer; token_embd stays in host memory",
			int64(layers), int64(in.Model.NumLayers()))
	}
	a, b := int64(r.Layers[0]), int64(r.Layers[1]-1)
	if elsewhere, out := llamaSplitOutput(in); elsewhere {
		return linef("layers %d-%d; the output layer is on CUDA%d, token_embd in host memory", a, b, out)
	}
	return linef("layers %d-%d and the output layer; token_embd stays in host memory", a, b)
}

// llamaLayersOf names the layers whose KV a split's device holds, "" for
// one GPU (whose KV is every offloaded layer's).
func llamaLayersOf(in *Input) string {
	if r := in.Rank; r != nil && r.Layout.llamaSplit() {
		return linef("layers %d-%d: ", int64(r.Layers[0]), int64(r.Layers[1]-1))
	}
	return ""
}

// llamaComputeDetail says how the compute buffer is estimated. A split's
// device without the output layer is charged the output device's
// estimate, whose logits it does not hold, so there it is an upper bound.
func llamaComputeDetail(in *Input) string {
	if llamaTensorRank(in) {
		return llamaTensorComputeDetail(in)
	}
	if elsewhere, out := llamaSplitOutput(in); elsewhere {
		return linef("estimated as on CUDA%d, which holds the logits (an upper bound here): logits + hidden state; "+
			"with flash attention off, the KQ scores", out)
	}
	return "estimated: logits + hidden state; with flash attention off, the KQ scores"
}

// llamaSplitHost keeps in a split's device's host memory only what is its
// own: token_embd (and the CPU's layers) with the first device, the logits
// output buffer with the output device, whose host buffer type it is
// allocated from (src/llama-context.cpp, llama_context::output_reserve:
// ggml_backend_dev_host_buffer_type(model.dev_output())). Summed over the
// devices, the host memory is the process's.
func llamaSplitHost(e *EngineReport, r *Rank) {
	last := r.Layout.pp() - 1
	e.Host = slices.DeleteFunc(e.Host, func(it Item) bool {
		return (it.Key == "token_embd" && r.Stage != 0) || (it.Key == "output_buffer" && r.Stage != last)
	})
}

// llamaSumNames names the layout's sums of a split's device buffers by the
// devices they sum ("CUDA0-CUDA1 model buffer"), not by the first one.
func llamaSumNames(in *Input, items []Item) {
	last := in.Parallel.pp() - 1
	if llamaTensor(in) {
		last = in.Parallel.tp() - 1
	} else if !in.Parallel.llamaSplit() || in.Serving.Engine != EngineLlamaCpp {
		return
	}
	for i := range items {
		if rest, ok := strings.CutPrefix(items[i].Name, "CUDA0 "); ok {
			items[i].Name = linef("CUDA0-CUDA%d ", int64(last)) + rest
		}
	}
}

// llamaHostLayers adds to host the cpu layers that -ngl leaves on the CPU
// (the first ones; in holds the whole model): their weights, in host
// memory without CUDA's row padding, and their KV, which llama.cpp keeps
// beside them: src/llama-kv-cache.cpp, llama_kv_cache::llama_kv_cache,
// puts a layer's K and V in the buffer of model.dev_layer(il), and
// src/llama-model.cpp's load_tensors gives a layer below i_gpu_start the
// CPU device (its log: "CPU KV buffer size").
func llamaHostLayers(host []Item, in *Input, cells *llamaCells, cpu int) []Item {
	m := &in.Model
	n := m.NumLayers()
	repeating := m.Weights.Bytes - classBytes(m, "embedding") - classBytes(m, "output") - Bytes(4*m.HiddenSize)
	weights := Bytes(int64(max(repeating, 0)) / int64(n) * int64(cpu))
	f1, s1 := llamaKV(in, cells, n)
	f2, s2 := llamaKV(in, cells, n-cpu)
	layers := linef("layers 0-%d", int64(cpu-1))
	return append(host,
		Item{Key: "cpu_layers", Name: "layers left on the CPU (CPU_Mapped)", Tier: TierModelResident, Bytes: weights,
			Source: SourceFormula, Detail: linef(layers+"'s weights: -ngl %d of %d offloads the rest", int64(n+1-cpu), int64(n+1))},
		Item{Key: "cpu_kv", Name: "CPU KV buffer", Tier: TierPooled, Bytes: satAdd(f1-f2, s1-s2), Source: SourceExact,
			Detail: layers + "'s K " + string(in.Limits.KVDtype.normalize()) + " and V " + string(vDtype(in)) +
				": a layer's KV is on its layer's device"})
}
