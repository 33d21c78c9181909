package planner

// This file is llama.cpp's tensor split (-sm tensor), the case beside the
// layer split (engine_llamacpp_layer_split.go): under the llama.cpp profile a layout of
// tensor_parallel N is one llama-server whose "meta device" spans N GPUs
// and splits every layer's tensors across them, KV cache included. Read
// from llama.cpp b12072 (81ff7abe, in kainlan/llama.cpp-intel-optimizations'
// history):
//
//   - -sm tensor is LLAMA_SPLIT_MODE_TENSOR (common/arg.cpp, "-sm"; include/
//     llama.h); src/llama.cpp's llama_prepare_model_devices wraps every GPU in
//     one meta device (ggml_backend_meta_device), so -ngl counts layers of
//     that one device, and src/llama-model.cpp's llama_model_create throws
//     "LLAMA_SPLIT_MODE_TENSOR not implemented for architecture" for the
//     architectures src/llama-arch.cpp's llm_arch_supports_sm_tensor lists.
//   - Which tensor splits where is src/llama-model.cpp's
//     llama_meta_device_get_split_state: Q, K, V (and a fused QKV) by output
//     rows (ggml axis 1), the attention output by its input columns (axis 0);
//     FFN gate and up (experts' too) by rows, down by columns; the output
//     matrix by vocabulary rows; the KV cache's K and V by their row of
//     n_head_kv × head_dim elements (axis 0). Everything else is mirrored,
//     a whole copy on every device: norms, the router, shared experts
//     (ffn_*_shexp matches none of its patterns), the attention-output and
//     down biases, and a tied output matrix (it is named token_embd.weight).
//   - The split of one segment of ne elements: with shares ts, the cut after
//     device j is ne × scan(ts)[j] / Σts in float, rounded down to the
//     granularity g, the last device taking the remainder; with no -ts, the
//     cut is ne × (j+1) / N. The shares are rotated by the layer's index
//     among the layers of its kind (so the remainders move round the
//     devices), and by n_layer for the output matrix.
//   - The granularity keeps heads whole: for attention, g_q = lcm(n_gqa ×
//     head_dim, b) query elements (whole KV groups) and g_kv = g_q / n_gqa
//     (whole KV heads), b being the block size of the layer's attn_output
//     type doubled while under 128 and b × N < n_gqa × head_dim; for the FFN,
//     lcm(block size of ffn_down's type, 128); 1 for the output matrix.
//   - Weights and KV go through ggml_backend_meta_alloc_ctx_tensors_from_buft
//     (ggml/src/ggml-backend-meta.cpp; ggml-alloc.c sends a meta buffer type
//     there), one buffer of slices per device. The compute buffer does not:
//     ggml_backend_meta_buffer_type_get_alloc_size sizes each graph tensor
//     whole (the largest of the devices' sizes of the full tensor) and
//     ggml_backend_meta_buffer_type_alloc_buffer allocates that size on every
//     device, so each device reserves the one-GPU compute buffer.
//   - Communication: the meta backend's context calls the CUDA backend's
//     ggml_backend_comm_init (NCCL) over the N devices and keeps
//     ceil(log2 N) reduce buffers per device of the largest partial
//     (pre-all-reduce) tensor (ggml_backend_meta_context,
//     ggml_backend_meta_graph_compute's max_tmp_size).
//   - Refusals: flash attention off ("SPLIT_MODE_TENSOR requires flash_attn
//     to be enabled", src/llama-context.cpp, llama_init_from_model), and a
//     quantized KV cache (docs/multi-gpu.md's troubleshooting table; the
//     message it quotes is not in the source at 81ff7abe).
//
// The planner's model shape keeps bytes per class and GEMM matrices by
// role, not per tensor, so a matrix's slice is its layers' average slice:
// exact when every layer splits alike (shares that divide), an even spread
// of the rotated remainders otherwise.

import (
	"slices"
	"strconv"
	"strings"
)

// llamaTensor reports whether in, a whole input, is llama.cpp's -sm tensor.
func llamaTensor(in *Input) bool {
	return in.Serving.Engine == EngineLlamaCpp && in.Parallel.tp() > 1
}

// llamaTensorRank reports whether in is one device's input of -sm tensor.
func llamaTensorRank(in *Input) bool {
	return in.Serving.Engine == EngineLlamaCpp && in.Rank != nil && in.Rank.Layout.tp() > 1
}

// smTensorRefused are the architectures llm_arch_supports_sm_tensor
// (src/llama-arch.cpp) refuses, by llama.cpp's name and by the Hugging Face
// model_type a config.json gives, compared with '-' as '_'.
var smTensorRefused = []string{"grok", "mpt", "plamo2", "minicpm3", "gemma3n", "gemma3n_text", "mamba", "mamba2",
	"jamba", "falcon_h1", "olmo2", "olmoe", "deepseek2", "deepseek_v2", "deepseek_v3", "deepseek32", "deepseek4",
	"glm_dsa", "bitnet", "t5", "nemotron_h", "nemotron_h_moe", "granitehybrid", "granitemoehybrid", "lfm2",
	"lfm2moe", "lfm2_moe", "minimax_m2", "mistral4", "kimi_linear"}

// llamaMaxDevices is src/llama.cpp's llama_max_devices().
const llamaMaxDevices = 16

// validateLlamaTensor checks a -sm tensor layout as llama.cpp checks it.
func validateLlamaTensor(in *Input) error {
	p, m := &in.Parallel, &in.Model
	switch {
	case p.tp() > llamaMaxDevices:
		return bad("parallel.tensor_parallel", "%d GPUs: llama.cpp uses at most %d devices (llama_max_devices)", p.tp(), llamaMaxDevices)
	case len(p.TensorSplit) >= llamaMaxDevices:
		return bad("parallel.tensor_split", "%d shares: llama-server's -ts takes fewer than %d (common/arg.cpp refuses as many "+
			"as llama_max_devices); give none for an even split", len(p.TensorSplit), llamaMaxDevices)
	case p.pp() > 1:
		return bad("parallel.pipeline_parallel", "llama.cpp's -sm tensor puts every layer on all %d GPUs; it has no "+
			"pipeline stages (-sm layer splits the layers, without tensor_parallel)", p.tp())
	case p.ep() > 1:
		return bad("parallel.expert_parallel", "llama.cpp's -sm tensor splits each expert across the GPUs; it has no expert parallelism")
	case p.dp() > 1:
		return bad("parallel.data_parallel", "one llama-server has no replicas: plan one server per replica")
	case len(p.TensorSplit) > 0 && len(p.TensorSplit) != p.tp():
		return bad("parallel.tensor_split", "%d shares for tensor_parallel %d (one per GPU)", len(p.TensorSplit), p.tp())
	case !in.Serving.LlamaCpp.FlashAttn.on():
		return bad("serving.llama_cpp.flash_attn", "llama.cpp's -sm tensor requires flash attention "+
			"(\"SPLIT_MODE_TENSOR requires flash_attn to be enabled\"): use on or auto")
	case isQuantKV(in.Limits.KVDtype.normalize()):
		return bad("limits.kv_dtype", "llama.cpp's -sm tensor has no quantized KV cache (%s): use f16 or bf16", in.Limits.KVDtype)
	case isQuantKV(vDtype(in)):
		return bad("serving.llama_cpp.kv_dtype_v", "llama.cpp's -sm tensor has no quantized KV cache (%s): use f16 or bf16", vDtype(in))
	case slices.Contains(smTensorRefused, strings.ReplaceAll(strings.ToLower(m.Arch), "-", "_")):
		return bad("model.arch", "llama.cpp's -sm tensor is not implemented for architecture %q "+
			"(llm_arch_supports_sm_tensor): use -sm layer (pipeline_parallel)", m.Arch)
	}
	for i, s := range p.TensorSplit {
		if !(s > 0) || s > 1e6 {
			return bad("parallel.tensor_split", "share %d is %v: want a positive number up to 1e6", i, s)
		}
	}
	return validateTensorLayers(m)
}

// validateTensorLayers checks that every layer has the geometry the split
// needs: whole query groups per KV head, and no layer kind this file does
// not plan.
func validateTensorLayers(m *Model) error {
	for i := range m.Layers {
		l := &m.Layers[i].Layer
		switch l.Kind {
		case LayerFull, LayerSliding:
			if m.QueryHeads <= 0 || l.KVHeads <= 0 || m.QueryHeads%l.KVHeads != 0 {
				return bad("model.query_heads", "-sm tensor splits attention by whole KV groups: query_heads %d is not "+
					"a multiple of %s %d", m.QueryHeads, layerField(i, "kv_heads"), l.KVHeads)
			}
			if l.KeyDim <= 0 || l.ValueDim != l.KeyDim {
				return bad(layerField(i, "value_dim"), "-sm tensor cuts V at the granularity of K's heads; a value_dim "+
					"(%d) other than key_dim (%d) is not planned", l.ValueDim, l.KeyDim)
			}
		case LayerMLA:
			return bad(layerField(i, "kind"), "llama.cpp's -sm tensor is not implemented for MLA models (DeepSeek2)")
		case LayerRecurrent:
			return bad(layerField(i, "kind"), "llama.cpp's -sm tensor splits recurrent layers by its own per-model "+
				"segments (Qwen3-Next, Qwen3.5); they are not planned yet: use -sm layer (pipeline_parallel)")
		}
	}
	return nil
}

// tsSplit is one device layout of llama_meta_device_get_split_state: the
// shares (nil: none given), the device count and a rotation.
type tsSplit struct {
	ts  []float64
	n   int
	rot int
}

// cut adds to out (one entry per device) the split of one segment of ne
// elements at granularity g, nr times (a fused tensor repeats a segment).
// The float arithmetic is llama.cpp's float32; a cut is held within
// [previous cut, ne], which llama.cpp's cannot leave below 2^24 elements.
func (s tsSplit) cut(out []int64, ne, g int64, nr int64) {
	var total float32
	for _, x := range s.ts {
		total += float32(x)
	}
	var scan float32
	low := int64(0)
	for j := 0; j < s.n-1; j++ {
		var high int64
		if total == 0 {
			high = ne * int64(j+1) / int64(s.n)
		} else {
			scan += float32(s.ts[(j+s.rot)%s.n])
			high = int64(float32(ne) * scan / total)
		}
		high -= high % max(g, 1)
		high = min(max(high, low), ne)
		out[(j+s.rot)%s.n] += (high - low) * nr
		low = high
	}
	out[(s.n-1+s.rot)%s.n] += (ne - low) * nr
}

// blockOf is the ggml block size (elements) of a weight type: 1 for the
// float types and any type ggml does not block.
func blockOf(dtype string) int64 {
	if b, ok := ggmlBlocks[strings.ToLower(dtype)]; ok {
		return b[0]
	}
	return 1
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// tensorGeometry is what the split of a model needs, read once.
type tensorGeometry struct {
	m        *Model
	n        int
	ts       []float64
	kinds    []LayerKind // per layer
	layers   []*Layer    // per layer
	rot      []int       // per layer: its index among layers of its kind, mod n
	shares   map[shareKey]share
	attnBlk  int64 // block size of attn_output's type
	ffnBlk   int64 // of ffn_down's
	expBlk   int64 // of ffn_down_exps'
	attnLays int   // full and sliding layers
}

func newTensorGeometry(m *Model, p *Parallel) *tensorGeometry {
	g := &tensorGeometry{m: m, n: p.tp(), ts: p.TensorSplit, attnBlk: 1, ffnBlk: 1, expBlk: 1, shares: map[shareKey]share{}}
	var seen [2]int // layers so far that are, and are not, sliding
	for i := range m.Layers {
		lg := &m.Layers[i]
		for range lg.Count {
			g.layers = append(g.layers, &lg.Layer)
			k := 0
			if lg.Kind == LayerSliding {
				k = 1
			}
			g.kinds = append(g.kinds, lg.Kind)
			g.rot = append(g.rot, seen[k]%g.n)
			seen[k]++
			if lg.Kind == LayerFull || lg.Kind == LayerSliding {
				g.attnLays++
			}
		}
	}
	g.attnBlk, g.ffnBlk, g.expBlk = g.block("attn_output"), g.block("ffn_down"), g.block("ffn_down_exps")
	return g
}

// block is the block size of the most instances of matrix name.
func (g *tensorGeometry) block(name string) int64 {
	b, most := int64(1), 0
	for _, x := range g.m.Weights.Matrices {
		if x.Name == name && x.Count > most {
			b, most = blockOf(x.Dtype), x.Count
		}
	}
	return b
}

// attnGranularity is layer il's g_q and g_kv (get_split_granularity).
func (g *tensorGeometry) attnGranularity(il int) (gq, gkv int64) {
	l := g.layerAt(il)
	gqa := int64(g.m.QueryHeads / l.KVHeads)
	embdQ := gqa * int64(l.KeyDim)
	perf := g.attnBlk
	for perf < 128 && perf*int64(g.n) < embdQ {
		perf *= 2
	}
	gq = lcm(embdQ, perf)
	return gq, gq / gqa
}

// layerAt is the geometry of layer il.
func (g *tensorGeometry) layerAt(il int) *Layer { return g.layers[il] }

func (g *tensorGeometry) split(rot int) tsSplit { return tsSplit{ts: g.ts, n: g.n, rot: rot} }

// kvHeads returns each device's KV heads in layer il (cache_k_l, axis 0),
// into out.
func (g *tensorGeometry) kvHeads(il int, out []int64) []int64 {
	l := g.layerAt(il)
	clear(out)
	_, gkv := g.attnGranularity(il)
	g.split(g.rot[il]).cut(out, int64(l.KVHeads)*int64(l.KeyDim), gkv, 1)
	for d := range out {
		out[d] /= int64(l.KeyDim)
	}
	return out
}

// shareKey names a split matrix by what its split depends on: matrices
// of one role and size (a role's instances in two types) split alike.
type shareKey struct {
	name string
	n, k int
}

// share is each device's elements along a matrix's split axis, summed
// over its layers, and the whole's.
type share struct {
	dev   []int64
	whole int64
}

// matrixShare returns each device's elements along the split axis of
// matrix x, summed over the layers x is split in, and the whole's; ok is
// false for a matrix that is mirrored. Shares are computed once per role
// and size.
func (g *tensorGeometry) matrixShare(x *Matrix) (dev []int64, whole int64, ok bool) {
	k := shareKey{x.Name, x.N, x.K}
	if s, ok := g.shares[k]; ok {
		return s.dev, s.whole, s.whole > 0
	}
	dev, whole, ok = g.computeShare(x)
	g.shares[k] = share{dev, whole}
	return dev, whole, ok
}

func (g *tensorGeometry) computeShare(x *Matrix) (dev []int64, whole int64, ok bool) {
	dev = make([]int64, g.n)
	ne := int64(x.N)
	switch x.Name {
	case "attn_output", "ffn_down", "ffn_down_exps":
		ne = int64(x.K)
	case "attn_q", "attn_k", "attn_v", "attn_qkv", "ffn_gate", "ffn_up", "ffn_gate_up", "ffn_gate_exps",
		"ffn_up_exps", "ffn_gate_up_exps":
	case "output":
		g.split(len(g.kinds)%g.n).cut(dev, ne, 1, 1)
		return dev, ne, true
	default:
		return nil, 0, false
	}
	for il, k := range g.kinds {
		if strings.HasPrefix(x.Name, "attn_") && k != LayerFull && k != LayerSliding {
			continue
		}
		g.cutLayer(dev, x, ne, il)
		whole += ne
	}
	return dev, whole, whole > 0
}

// cutLayer adds layer il's split of matrix x (ne elements on its split axis).
func (g *tensorGeometry) cutLayer(dev []int64, x *Matrix, ne int64, il int) {
	s := g.split(g.rot[il])
	switch x.Name {
	case "attn_q", "attn_output":
		gq, _ := g.attnGranularity(il)
		s.cut(dev, ne, gq, 1)
	case "attn_k", "attn_v":
		_, gkv := g.attnGranularity(il)
		s.cut(dev, ne, gkv, 1)
	case "attn_qkv": // segments {n_embd, 1}, {n_embd_gqa, 2}
		gq, gkv := g.attnGranularity(il)
		l := g.layerAt(il)
		q, kv := int64(g.m.QueryHeads)*int64(l.KeyDim), int64(l.KVHeads)*int64(l.KeyDim)
		if q+2*kv != ne {
			s.cut(dev, ne, gq, 1)
			return
		}
		s.cut(dev, q, gq, 1)
		s.cut(dev, kv, gkv, 2)
	case "ffn_gate_up", "ffn_gate_up_exps": // segment {n_ff, 2}
		s.cut(dev, ne/2, lcm(g.blockFor(x), 128), 2)
		if ne%2 != 0 {
			dev[(g.n-1+s.rot)%g.n]++
		}
	default: // the FFN's
		s.cut(dev, ne, lcm(g.blockFor(x), 128), 1)
	}
}

func (g *tensorGeometry) blockFor(x *Matrix) int64 {
	if strings.HasSuffix(x.Name, "_exps") {
		return g.expBlk
	}
	return g.ffnBlk
}

// llamaTensorModels is model m as each device of -sm tensor layout p
// holds it: each class less its split matrices' other devices' slices,
// every layer's KV heads the device's, the rest whole. The dimensions the
// compute buffer is sized from stay whole: every device reserves the
// one-GPU graph.
func llamaTensorModels(m *Model, p *Parallel) []Model {
	g := newTensorGeometry(m, p)
	heads := g.deviceHeads()
	out := make([]Model, g.n)
	for d := range out {
		out[d] = *m
		out[d].Layers = g.deviceLayers(heads, d)
		out[d].Weights = g.deviceWeights(d)
		if d > 0 {
			out[d].Vision = nil // the projector loads on the first GPU: tools/mtmd/clip.cpp, clip_ctx's ggml_backend_init_by_type(GPU)
			out[d].Weights = hostEmbedding(out[d].Weights)
		}
	}
	return out
}

// deviceHeads is every layer's KV heads on each device, layer-major.
func (g *tensorGeometry) deviceHeads() []int64 {
	out := make([]int64, len(g.layers)*g.n)
	for il, l := range g.layers {
		if l.Kind == LayerFull || l.Kind == LayerSliding {
			g.kvHeads(il, out[il*g.n:(il+1)*g.n])
		}
	}
	return out
}

// deviceLayers is the layer groups with device d's KV heads.
func (g *tensorGeometry) deviceLayers(heads []int64, d int) []LayerGroup {
	out := make([]LayerGroup, 0, len(g.m.Layers))
	for il, p := range g.layers {
		l := *p
		if l.Kind == LayerFull || l.Kind == LayerSliding {
			l.KVHeads = int(heads[il*g.n+d])
		}
		if n := len(out); n > 0 && out[n-1].Layer == l {
			out[n-1].Count++
		} else {
			out = append(out, LayerGroup{Count: 1, Layer: l})
		}
	}
	return out
}

// deviceWeights is device d's weights: each split matrix's bytes scaled
// to its slice, its class less the difference; mirrored bytes whole.
func (g *tensorGeometry) deviceWeights(d int) Weights {
	w := g.m.Weights
	w.Source = SourceFormula
	w.Classes = slices.Clone(w.Classes)
	w.Matrices = make([]Matrix, 0, len(g.m.Weights.Matrices))
	cut := map[string]Bytes{} // bytes each class sheds on this device
	for _, x := range g.m.Weights.Matrices {
		dev, whole, ok := g.matrixShare(&x)
		if !ok {
			w.Matrices = append(w.Matrices, x)
			continue
		}
		b := g.matrixBytes(&x)
		cut[matrixClass(x.Name)] += b - Bytes(mulDiv(int64(b), dev[d], whole))
		if y := sliceMatrix(x, dev[d], whole); y.Count > 0 {
			w.Matrices = append(w.Matrices, y)
		}
	}
	for i := range w.Classes {
		c := &w.Classes[i]
		shed := min(cut[c.Class], c.Bytes)
		if c.Bytes > 0 {
			c.Params -= mulDiv(c.Params, int64(shed), int64(c.Bytes))
		}
		c.Bytes -= shed
		w.Bytes -= shed
	}
	return w
}

// matrixClass is the weight class a split matrix is charged to
// (planner/internal/arch's RoleClass for these roles).
func matrixClass(name string) string {
	switch {
	case name == "output":
		return "output"
	case strings.HasSuffix(name, "_exps"):
		return "experts"
	case strings.HasPrefix(name, "attn_"):
		return "attention"
	}
	return "ffn"
}

// matrixBytes is the bytes of x's instances by its ggml type; a type the
// planner does not size is charged its class's bytes per parameter.
func (g *tensorGeometry) matrixBytes(x *Matrix) Bytes {
	elems := satMul3(int64(x.N), int64(x.K), int64(x.Count))
	if b, ok := ggmlBlocks[strings.ToLower(x.Dtype)]; ok {
		return Bytes(mulDiv(int64(elems), b[1], b[0]))
	}
	switch strings.ToLower(x.Dtype) {
	case "f32":
		return satMul(int64(elems), 4)
	case "f16", "bf16":
		return satMul(int64(elems), 2)
	case "fp8", "f8_e4m3":
		return elems
	}
	for _, c := range g.m.Weights.Classes {
		if c.Class == matrixClass(x.Name) && c.Params > 0 {
			return Bytes(mulDiv(int64(elems), int64(c.Bytes), c.Params))
		}
	}
	return elems
}

// sliceMatrix is x as a device holds it: its split axis scaled to the
// device's average slice (a device's matrices size CUDA's row padding).
func sliceMatrix(x Matrix, dev, whole int64) Matrix {
	switch x.Name {
	case "attn_output", "ffn_down", "ffn_down_exps":
		x.K = int(mulDiv(int64(x.K), dev, whole))
	default:
		x.N = int(mulDiv(int64(x.N), dev, whole))
	}
	if x.N <= 0 || x.K <= 0 {
		x.Count = 0
	}
	return x
}

// llamaTensorDevices returns each device's model of a -sm tensor layout
// and, for each device, the first device whose share is the same (so
// identical devices are planned once), as a negative number apart from
// any expert count.
func llamaTensorDevices(in *Input) (groups []int, ms []Model) {
	m, p := in.Model, in.Parallel // copies, so that in stays on its caller's stack
	ms = llamaTensorModels(&m, &p)
	groups = make([]int, len(ms))
	for d := range ms {
		groups[d] = -1 - d
		for e := range d {
			if sameShare(&ms[d], &ms[e]) {
				groups[d] = -1 - e
				break
			}
		}
	}
	return groups, ms
}

// llamaTensorRankInput makes t, a rank's input of layout in, device d's
// of -sm tensor, whose model is m.
func llamaTensorRankInput(t *Input, in *Input, m *Model, cal *Calibration) {
	t.Model = *m
	t.Features.Vision = in.Features.Vision && m.Vision != nil
	t.Rank.Comm, t.Rank.CommSource = llamaTensorComm(&in.Parallel, cal)
}

// sameShare reports whether two devices' models hold the same bytes.
func sameShare(a, b *Model) bool {
	return a.Weights.Bytes == b.Weights.Bytes && slices.Equal(a.Layers, b.Layers) && (a.Vision == nil) == (b.Vision == nil) &&
		slices.Equal(a.Weights.Matrices, b.Weights.Matrices)
}

// llamaTensorComm is a -sm tensor device's communication memory: NCCL's
// communicator over the layout's GPUs (ggml_backend_comm_init), measured
// when the calibration has it, else AIConfigurator's published NCCL figure
// (comm.go) without vLLM's custom all-reduce, which llama.cpp does not have.
func llamaTensorComm(p *Parallel, c *Calibration) (Bytes, Source) {
	q := *p
	q.NoCustomAllReduce = true // llama.cpp has none
	return commFor(&q, c)
}

// llamaReduceBuffers is the meta backend's reduce buffers on each device:
// ceil(log2 N) of the largest partial tensor, an n_embd × n_ubatch f32
// row per token (times the experts used for a MoE, whose expert outputs
// are partial before they are summed; estimated).
func llamaReduceBuffers(in *Input, c *llamaCells) Bytes {
	if !llamaTensorRank(in) {
		return 0
	}
	steps := int64(0)
	for x := 1; x < in.Rank.Layout.tp(); x *= 2 {
		steps++
	}
	row := int64(in.Model.HiddenSize) * 4
	if e := in.Model.MoE; e != nil && e.ExpertsUsed > 1 {
		row *= int64(e.ExpertsUsed)
	}
	return satMul3(steps, row, c.ubatch)
}

// llamaTensorLaunch states a -sm tensor device in the launch command, and
// in its -ngl note's: -sm tensor and its -ts, the shares given or 1 for
// each GPU, which splits as llama.cpp's default does and pins the device
// count (but for 16 GPUs, whose 16 shares llama-server's -ts refuses: then
// a note says so). rin is the device's input, m the whole model.
func llamaTensorLaunch(e *EngineReport, rin *Input, m *Model) {
	r := rin.Rank
	p := &r.Layout
	flags := " -sm tensor"
	if p.tp() >= llamaMaxDevices && len(p.TensorSplit) == 0 {
		e.Notes = append(e.Notes, linef("-sm tensor over all %d GPUs: run it with exactly these GPUs visible "+
			"(CUDA_VISIBLE_DEVICES); llama-server's -ts takes fewer shares than that", int64(p.tp())))
	} else {
		shares := make([]string, p.tp())
		for i := range shares {
			shares[i] = "1"
			if len(p.TensorSplit) == p.tp() {
				shares[i] = strconv.FormatFloat(p.TensorSplit[i], 'g', -1, 64)
			}
		}
		flags += " -ts " + strings.Join(shares, ",")
	}
	e.Launch += flags
	if e.LaunchAsAsked != "" {
		e.LaunchAsAsked += flags
	}
	llamaTensorHost(e, rin, m)
}

// llamaTensorHost keeps the host's token_embd, logits and the layers -ngl
// leaves on the CPU (with their KV), one process's, in the first device's
// plan only, the CPU's layers whole: a device's own input holds only its
// slices of them.
func llamaTensorHost(e *EngineReport, rin *Input, m *Model) {
	r := rin.Rank
	e.Host = slices.DeleteFunc(e.Host, func(it Item) bool {
		return it.Key == "cpu_layers" || it.Key == "cpu_kv" || (r.Ranks[0] != 0 && (it.Key == "token_embd" || it.Key == "output_buffer"))
	})
	layers, _ := gpuLayers(rin)
	if cpu := m.NumLayers() - layers; cpu > 0 && r.Ranks[0] == 0 {
		whole := *rin
		whole.Model, whole.Rank = *m, nil
		cells := cellsOf(&whole, resolve(&whole.Limits))
		e.Host = llamaHostLayers(e.Host, &whole, &cells, cpu)
	}
}

// hostEmbedding is a later device's weights without the input embedding,
// which the host holds once and the first device's share carries. A tied
// output matrix is mirrored: on a later device the embedding's bytes are
// its output class.
func hostEmbedding(w Weights) Weights {
	tied := !slices.ContainsFunc(w.Classes, func(c WeightClass) bool { return c.Class == "output" && c.Bytes > 0 })
	for i := range w.Classes {
		if c := &w.Classes[i]; c.Class == "embedding" {
			if tied {
				c.Class = "output"
				continue
			}
			w.Bytes -= c.Bytes
			c.Bytes, c.Params = 0, 0
		}
	}
	return w
}

// llamaTensorWeightsDetail says what a -sm tensor device's model buffer
// holds.
func llamaTensorWeightsDetail(in *Input) string {
	layers, _ := gpuLayers(in)
	return linef("its -sm tensor slices of %d of %d repeating layers and of the output layer, and whole copies of "+
		"the norms, routers and shared experts; token_embd stays in host memory", int64(layers), int64(in.Model.NumLayers()))
}

// llamaTensorComputeDetail says how a -sm tensor device's compute buffer
// is estimated.
func llamaTensorComputeDetail(in *Input) string {
	n := int64(in.Rank.Layout.tp())
	steps := int64(0)
	for x := int64(1); x < n; x *= 2 {
		steps++
	}
	return linef("estimated: the one-GPU buffer, as the meta device sizes graph tensors whole on each of its %d GPUs "+
		"(logits + hidden state), and %d reduce buffers of n_embd × n_ubatch f32 (× experts used for a MoE)", n, steps)
}
