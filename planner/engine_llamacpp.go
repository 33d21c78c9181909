package planner

import (
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// This file is the llama.cpp profile, read from llama.cpp b12072 (upstream
// commit 81ff7abe50b95fb81cc70a6cdba1eb1a02a48f62) and validated on an H200
// (docs/engine-results.md). The rules and where they live:
//
//   - context cells: n_ctx = PAD(c, 256); unified: one stream of n_ctx
//     cells; split (-np N): N streams of PAD(n_ctx / N, 256) cells
//     (src/llama-context.cpp, llama_context::llama_context).
//   - KV: per layer one K tensor [n_embd_k_gqa, cells, streams] and one V
//     tensor; with flash attention off V is transposed and every layer's row
//     is the widest (n_embd_v_gqa_max); MLA keeps K only
//     (src/llama-kv-cache.cpp, llama_kv_cache::llama_kv_cache).
//   - sliding-window layers: PAD(min(cells, n_swa × (unified ? N : 1) +
//     n_ubatch), 256) cells per stream, all cells with --swa-full
//     (src/llama-kv-cache-iswa.cpp, llama_kv_cache_iswa::llama_kv_cache_iswa).
//   - buffers: CUDA allocates each tensor rounded up to 128 bytes and adds
//     one padding row of 512 − ne0 % 512 elements to a quantized tensor
//     whose rows are not a multiple of 512 (ggml/src/ggml-cuda/ggml-cuda.cu,
//     ggml_backend_cuda_buffer_type_get_alloc_size).
//   - offload: token_embd stays in host memory; a tied output matrix is
//     copied to the GPU; -ngl N puts the output layer and the last N − 1
//     repeating layers, with their KV, on the GPU (src/llama-model.cpp,
//     load_tensors; measured).
//   - compute buffer: reserved once for n_ubatch tokens (src/llama-context.cpp,
//     sched_reserve); its size is estimated below from the graph's largest
//     live tensors, measured on three models.
//   - logits: host memory, n_vocab × n_seq_max × 4 B at start
//     (llama_context::output_reserve).

// EngineLlamaCpp is llama.cpp's llama-server.
const EngineLlamaCpp EngineName = "llama.cpp"

// LlamaCppVersion is the llama.cpp release the profile's rules were read from.
const LlamaCppVersion = "llama.cpp b12072 (81ff7abe)"

var llamaCppProfile = Profile{Name: EngineLlamaCpp, Label: "llama.cpp", Aliases: []string{"llamacpp", "llama-cpp"},
	Versions: []VersionRange{{From: build(12072), ReadAt: LlamaCppVersion}},
	KVDtypes: []KVDtype{KVDtypeF16, KVDtypeBF16, KVDtypeQ8_0, KVDtypeQ4_0}, Loads: ModelGGUF, LayerOffload: true, TensorSplit: true,
	knobs: []Knob{KnobMaxSeqLen, KnobKVDtype, KnobMaxBatch, KnobPrefillTokens, KnobVision}, cells: true}

// FlashAttn is llama.cpp's -fa setting.
type FlashAttn string

// Flash-attention settings. The zero value is "auto", which llama.cpp
// resolves to on for a CUDA device that supports it, as every card of
// compute capability 7.0 or later does.
const (
	FlashAttnAuto FlashAttn = "auto"
	FlashAttnOn   FlashAttn = "on"
	FlashAttnOff  FlashAttn = "off"
)

func (f FlashAttn) on() bool { return f != FlashAttnOff }

// LlamaCppOptions are llama-server's memory flags that Limits does not
// carry. Limits.MaxBatch is -np (0: llama-server's auto, 4 slots with a
// unified cache), Limits.MaxSeqLen the context of one sequence (so -c is
// MaxSeqLen × -np), Limits.MaxPrefillTokens -ub and Limits.KVDtype -ctk.
type LlamaCppOptions struct {
	Unified   bool      `json:"kv_unified,omitempty"` // -kvu: one stream shared by every sequence
	FlashAttn FlashAttn `json:"flash_attn,omitempty"` // -fa
	// GPULayers is -ngl counted as llama.cpp counts it, the output layer
	// first; 0 means every layer.
	GPULayers int     `json:"gpu_layers,omitempty"`
	SWAFull   bool    `json:"swa_full,omitempty"`   // --swa-full
	VDtype    KVDtype `json:"kv_dtype_v,omitempty"` // -ctv when it differs from -ctk
}

// LlamaCppAnswer is the plan in llama-server's terms.
type LlamaCppAnswer struct {
	CtxSize   int  `json:"ctx_size"` // -c
	Parallel  int  `json:"parallel"` // -np
	Unified   bool `json:"kv_unified"`
	CtxSeq    int  `json:"n_ctx_seq"` // cells per stream
	Streams   int  `json:"streams"`
	SWACells  int  `json:"swa_cells,omitempty"` // cells per stream of a sliding-window layer
	FlashAttn bool `json:"flash_attn"`
	Ubatch    int  `json:"n_ubatch"`
	Layers    int  `json:"layers"`     // repeating layers + the output layer: -ngl for all
	GPULayers int  `json:"gpu_layers"` // -ngl as planned
	// LayersThatFit is the largest -ngl whose plan fits the budget, 0 when
	// not even the output layer does.
	LayersThatFit int  `json:"gpu_layers_that_fit"`
	FullOffload   bool `json:"full_offload_fits"`
}

type llamaCpp struct{}

func (llamaCpp) validate(in *Input) error {
	o := &in.Serving.LlamaCpp
	llamaDtypes := llamaCppProfile.KVDtypes
	switch o.FlashAttn {
	case "", FlashAttnAuto, FlashAttnOn, FlashAttnOff:
	default:
		return bad("serving.llama_cpp.flash_attn", "unknown setting %q (want on, off or auto)", o.FlashAttn)
	}
	if o.VDtype != "" && !dtypeIn(o.VDtype, llamaDtypes) {
		return bad("serving.llama_cpp.kv_dtype_v", "llama.cpp offers no KV dtype %q (want one of %v)", o.VDtype, llamaDtypes)
	}
	if !o.FlashAttn.on() && isQuantKV(vDtype(in)) {
		return bad("serving.llama_cpp.kv_dtype_v", "a quantized V cache (%s) needs flash attention", vDtype(in))
	}
	if err := inRange("serving.llama_cpp.gpu_layers", o.GPULayers, 0, maxLayers+1); err != nil {
		return err
	}
	if in.Features.CUDAGraphs {
		return bad("features.cuda_graphs", "llama.cpp captures its CUDA graphs itself; there is nothing to plan")
	}
	return nil
}

func (llamaCpp) budget(in *Input) Bytes { return seedBudget(in) }

func vDtype(in *Input) KVDtype {
	if v := in.Serving.LlamaCpp.VDtype; v != "" {
		return v
	}
	return in.Limits.KVDtype.normalize()
}

func isQuantKV(d KVDtype) bool { return d == KVDtypeQ8_0 || d == KVDtypeQ4_0 }

// llamaCells is llama.cpp's context geometry for a plan's limits.
type llamaCells struct {
	nCtx, seq, streams, parallel, ubatch int64
	unified                              bool
}

func cellsOf(in *Input, l limits) llamaCells {
	n := int64(max(l.batch, 1))
	c := llamaCells{parallel: n, unified: in.Serving.LlamaCpp.Unified || n == 1}
	c.nCtx = padTo(int64(l.seqLen)*n, 256)
	c.seq, c.streams = c.nCtx, 1
	if !c.unified {
		c.seq, c.streams = padTo(c.nCtx/n, 256), n
		c.nCtx = c.seq * n
	}
	c.ubatch = min(int64(l.prefill), c.nCtx, 2048)
	return c
}

func padTo(n, to int64) int64 { return (n + to - 1) / to * to }

// swaCells is the cells per stream of a sliding layer of window w.
func (c *llamaCells) swaCells(in *Input, w int) int64 {
	if in.Serving.LlamaCpp.SWAFull {
		return c.seq
	}
	seqs := int64(1)
	if c.unified {
		seqs = c.parallel
	}
	return padTo(min(c.seq, int64(w)*seqs+c.ubatch), 256)
}

// gpuLayers returns how many repeating layers are offloaded and whether the
// output layer is.
func gpuLayers(in *Input) (int, bool) {
	n, ngl := in.Model.NumLayers(), in.Serving.LlamaCpp.GPULayers
	if ngl == 0 || ngl > n {
		return n, true
	}
	return ngl - 1, true
}

func (p llamaCpp) charge(in *Input, s *shape, l limits, c *charges) {
	c.set(keyContext, in.Calibration.Context)
	c.set(keyLibrary, in.Calibration.LibraryReserve)
	layers, _ := gpuLayers(in)
	c.set(keyWeights, llamaWeights(&in.Model, layers, holdsOutput(in)))
	if in.Features.Vision && in.Model.Vision != nil {
		c.set(keyVisionTower, in.Model.Vision.Bytes)
	}
	cells := cellsOf(in, l)
	full, swa := llamaKV(in, &cells, layers)
	if s.statePerSeq > 0 {
		c.set(keySSM, satMul(max(cells.parallel, 1), int64(s.statePerSeq)))
	}
	if len(s.sliding) > 0 {
		c.set(keySWA, swa)
	}
	c.set(keyKV, full)
	c.kv = kvCharge{global: full, swa: swa, blocks: cells.seq * cells.streams, globalBlock: 0, window: s.maxWindow}
	if len(s.sliding) > 0 {
		c.kv.swaPerSeq = cells.swaCells(in, s.maxWindow)
		c.kv.swaBlocks = c.kv.swaPerSeq * cells.streams
	}
	c.set(keyEngineCompute, satAdd(llamaCompute(in, s, &cells), llamaReduceBuffers(in, &cells)))
	c.set(keyCUDAPool, llamaPool(in, s, &cells))
}

// llamaWeights is the model buffer on the GPU with layers repeating layers
// and, when output is set, the output layer offloaded: everything but
// token_embd, a tied output matrix copied back, and CUDA's row padding.
func llamaWeights(m *Model, layers int, output bool) Bytes {
	embd, out := classBytes(m, "embedding"), classBytes(m, "output")
	if out == 0 && output {
		out = embd // tied: llama.cpp duplicates token_embd as the output matrix
	}
	norm := Bytes(4 * m.HiddenSize) // output_norm, f32
	if !output {
		out, norm = 0, 0
	}
	repeating := m.Weights.Bytes - embd - classBytes(m, "output") - norm
	if repeating < 0 {
		return m.Weights.Bytes
	}
	n := m.NumLayers()
	pad := cudaPadding(m)
	if layers >= n {
		return satAdd(out, norm, repeating, pad)
	}
	part := Bytes(int64(repeating) / int64(n) * int64(layers))
	return satAdd(out, norm, part, Bytes(int64(pad)*int64(layers)/int64(n)))
}

// holdsOutput reports whether in's GPU holds the output layer: one GPU
// does; in a layout, the last stage (llama.cpp's layer split gives the
// output layer, il = n_layer, to the last device, as a valid -ts gives the
// last device a layer). The first stage's share of a layout carries the
// input embedding, which llama.cpp keeps on the host all the same.
func holdsOutput(in *Input) bool {
	r := in.Rank
	return r == nil || r.Stage == r.Layout.pp()-1
}

func classBytes(m *Model, class string) Bytes {
	for _, c := range m.Weights.Classes {
		if c.Class == class {
			return c.Bytes
		}
	}
	return 0
}

// ggmlBlocks are ggml's block sizes of the quantized weight types
// (ggml/src/ggml.c, type_traits): elements per block, bytes per block.
var ggmlBlocks = map[string][2]int64{
	"q4_0": {32, 18}, "q4_1": {32, 20}, "q5_0": {32, 22}, "q5_1": {32, 24}, "q8_0": {32, 34},
	"q2_k": {256, 84}, "q3_k": {256, 110}, "q4_k": {256, 144}, "q5_k": {256, 176}, "q6_k": {256, 210},
	"iq4_nl": {32, 18}, "iq4_xs": {256, 136}, "mxfp4": {32, 17}, "q8_k": {256, 292},
}

// cudaPadding is what CUDA's buffer adds to the weights: one padding row of
// 512 − K % 512 elements for each quantized tensor whose rows K are not a
// multiple of 512, each tensor rounded up to 128 bytes.
func cudaPadding(m *Model) Bytes {
	var pad Bytes
	for i := range m.Weights.Matrices {
		x := &m.Weights.Matrices[i]
		b, ok := ggmlBlocks[strings.ToLower(x.Dtype)]
		if !ok || x.K%512 == 0 || int64(x.K)%b[0] != 0 {
			continue
		}
		tensors, per := int64(x.Count), int64(1)
		if e := m.MoE; e != nil && e.Experts > 0 && strings.HasSuffix(x.Name, "_exps") {
			tensors, per = int64(x.Count/e.Experts), int64(e.Experts)
		}
		n := int64(x.K) / b[0] * b[1] * int64(x.N) * per
		extra := int64(512-x.K%512) / b[0] * b[1]
		pad = satAdd(pad, satMul(tensors, padTo(n+extra, 128)-n))
	}
	return pad
}

// llamaKV sums the K and V tensors of the offloaded layers (the last
// layers of the model) into full-attention and sliding-window bytes.
func llamaKV(in *Input, cells *llamaCells, layers int) (full, swa Bytes) {
	m := &in.Model
	tk, tv := in.Limits.KVDtype.normalize(), vDtype(in)
	fa := in.Serving.LlamaCpp.FlashAttn.on()
	vmax := 0
	for i := range m.Layers {
		if l := &m.Layers[i].Layer; l.Kind == LayerFull || l.Kind == LayerSliding {
			vmax = max(vmax, l.KVHeads*l.ValueDim)
		}
	}
	skip := m.NumLayers() - layers
	for i := range m.Layers {
		g := &m.Layers[i]
		n := g.Count - min(skip, g.Count)
		skip -= g.Count - n
		if n <= 0 {
			continue
		}
		per, rows := Bytes(0), cells.seq
		switch g.Kind {
		case LayerFull, LayerSliding:
			v := g.KVHeads * g.ValueDim
			if !fa {
				v = vmax
			}
			if g.Kind == LayerSliding {
				rows = cells.swaCells(in, g.Window)
			}
			per = satAdd(cudaTensor(tk, g.KVHeads*g.KeyDim, rows*cells.streams), cudaTensor(tv, v, rows*cells.streams))
		case LayerMLA:
			per = cudaTensor(tk, g.LatentDim, rows*cells.streams)
		}
		if g.Kind == LayerSliding {
			swa = satAdd(swa, satMul(int64(n), int64(per)))
		} else {
			full = satAdd(full, satMul(int64(n), int64(per)))
		}
	}
	return full, swa
}

// cudaTensor is the CUDA allocation of a KV tensor of rows rows of ne0
// elements of d.
func cudaTensor(d KVDtype, ne0 int, rows int64) Bytes {
	b := satMul(int64(d.RowBytes(ne0)), rows)
	if isQuantKV(d) && ne0%512 != 0 {
		b = satAdd(b, d.RowBytes(512-ne0%512))
	}
	return roundUp(b, 128)
}

// llamaCompute estimates the CUDA compute buffer reserved for n_ubatch
// tokens. With flash attention its largest live tensors are the logits and
// the normed hidden state that feeds them, ubatch × (n_vocab + n_embd) × 4
// B — exact on the three validation models. Without it the attention of
// one layer can be larger: the KQ scores, cells × ubatch × heads × 4 B, the
// masks, cells × ubatch × 4 B for each kind of layer, and per token (2·q +
// 2.5·n_embd) × 4 + 16 B of Q, outputs and positions, fitted on the dense
// and MoE models (the sliding-window model's is 0.9 % higher).
func llamaCompute(in *Input, s *shape, c *llamaCells) Bytes {
	m := &in.Model
	logits := satMul3(c.ubatch, int64(m.VocabSize)+int64(m.HiddenSize), 4)
	if in.Serving.LlamaCpp.FlashAttn.on() || s.attnLayers == 0 {
		return logits
	}
	kv := c.seq
	if s.fullPerToken == 0 && s.maxWindow > 0 {
		kv = c.swaCells(in, s.maxWindow)
	}
	q := int64(m.QueryHeads) * int64(maxKeyDim(m))
	f := &llamaFit
	attn := satAdd(satMul3(kv, c.ubatch, (int64(m.QueryHeads)+1)*4),
		satMul(c.ubatch, f.ComputePerQuery*q+f.ComputePerHidden*int64(m.HiddenSize)+f.ComputePerToken))
	if s.fullPerToken > 0 && s.maxWindow > 0 {
		attn = satAdd(attn, satMul3(c.swaCells(in, s.maxWindow), c.ubatch, 4))
	}
	return max(logits, attn)
}

func maxKeyDim(m *Model) int {
	d := 0
	for i := range m.Layers {
		d = max(d, m.Layers[i].KeyDim)
	}
	return d
}

// llamaPool estimates what the first decode adds: ggml's CUDA memory pool
// for operand conversions and the kernels loaded lazily. The pool keeps
// its high-water mark, the largest set of buffers live at once in one op,
// so its parts are a maximum, not a sum, and it does not grow in
// proportion to -ub (12 MiB at -ub 512 and 16 at 1024 on the H200's dense
// model with flash attention, docs/engine-results.md). With flash
// attention it is a constant, PoolFA, and a MoE's expert products need
// PoolMoE more; without it, attention's batched cuBLAS products need
// PoolNoFA and their f16 copies (llamaAttnCopies, which grow with
// n_ubatch × n_kv) over PoolFA, or a MoE's PoolMoE where that is larger.
// The constants are LlamaCppFit's.
func llamaPool(in *Input, s *shape, c *llamaCells) Bytes {
	var moe Bytes
	if s.hasMoE {
		moe = llamaFit.PoolMoE
	}
	if in.Serving.LlamaCpp.FlashAttn.on() {
		return llamaFit.PoolFA + moe
	}
	return satAdd(llamaFit.PoolFA, max(moe, satAdd(llamaFit.PoolNoFA, llamaAttnCopies(in, c))))
}

// LlamaCppPoolCopies reports the part of the llama.cpp profile's CUDA-pool
// estimate for in that is a rule, not a fitted constant: without flash
// attention, attention's f16 copies at the first decode (0 with it). The
// refit subtracts it from a run's measured pool before fitting PoolNoFA.
func LlamaCppPoolCopies(in *Input) Bytes {
	if in.Serving.LlamaCpp.FlashAttn.on() {
		return 0
	}
	c := cellsOf(in, resolve(&in.Limits))
	return llamaAttnCopies(in, &c)
}

// llamaAttnCopies is what attention without flash attention takes of the
// CUDA pool at the first decode. Its product KQV = V·softmax(KQ) is a
// batched cuBLAS GEMM in f16 that copies its f32 operand, the KQ scores,
// to f16 and writes an f16 result into the pool before converting it back,
// both live at once (ggml/src/ggml-cuda/ggml-cuda.cu,
// ggml_cuda_mul_mat_cublas_impl: src1_alloc and dst_temp, at 81ff7abe):
// n_head × n_ubatch × 2 B × (n_kv + head_dim). KQ = K·Q itself is computed
// in f32 (src/llama-graph.cpp, build_attn_mha: ggml_mul_mat_set_prec(kq,
// GGML_PREC_F32)), which copies only K, n_kv × the KV heads' width × 4 B,
// less. The first decode of n_ubatch tokens into an empty cache sees
// n_kv = max(256, PAD(n_ubatch, 256)) cells, at most the layer's
// (src/llama-kv-cache.cpp, llama_kv_cache::get_n_kv). A later ubatch over
// a fuller cache needs more (n_kv up to the stream's cells), and the pool
// keeps its largest size: that growth is not charged (llamaPoolNote says
// it).
func llamaAttnCopies(in *Input, c *llamaCells) Bytes {
	return llamaAttnCopiesAt(in, c, max(256, padTo(c.ubatch, 256)))
}

// llamaAttnCopiesAt is llamaAttnCopies for a ubatch that sees nkv cells.
func llamaAttnCopiesAt(in *Input, c *llamaCells, nkv int64) Bytes {
	m := &in.Model
	var peak Bytes
	for i := range m.Layers {
		g := &m.Layers[i]
		cells, d := c.seq, max(g.KeyDim, g.ValueDim)
		switch g.Kind {
		case LayerFull:
		case LayerSliding:
			cells = c.swaCells(in, g.Window)
		case LayerMLA:
			d = g.LatentDim
		default:
			continue
		}
		peak = max(peak, satMul3(int64(m.QueryHeads)*c.ubatch, 2, min(nkv, cells)+int64(d)))
	}
	return peak
}

// LlamaCppFit holds the llama.cpp profile's fitted constants (E2 and E3 in
// docs/architecture.md). They are derived, not chosen: `vramplan engines
// refit` computes them from engine observations by the rules stated on
// each field, and calibrations/refit's test holds these to what the
// refit of the checked-in H200 grid gives.
type LlamaCppFit struct {
	// ComputePerQuery, ComputePerHidden and ComputePerToken are the
	// compute buffer's per-token term with flash attention off, in bytes:
	// PerQuery × q + PerHidden × n_embd + PerToken, q being query heads ×
	// head dim. PerQuery is the Q and KQV rows (2 × 4 B a query element)
	// and is not fitted; the other two are the weighted least-squares fit
	// over full-attention runs whose KQ scores are the largest tensor,
	// rounded to the byte.
	ComputePerQuery  int64 `json:"compute_per_query"`
	ComputePerHidden int64 `json:"compute_per_hidden"`
	ComputePerToken  int64 `json:"compute_per_token"`
	// PoolFA, PoolNoFA and PoolMoE are the first decode's CUDA pool
	// (llamaPool): each group's median over the runs of the device's memory
	// in use after the first decode less the plan's other charges, rounded
	// to the MiB. PoolFA is the median with flash attention on; PoolMoE a
	// MoE's median with it on, less PoolFA; PoolNoFA the median with it
	// off, less attention's f16 copies (LlamaCppPoolCopies, a rule, not
	// fitted), less PoolFA.
	PoolFA   Bytes `json:"pool_fa_bytes"`
	PoolNoFA Bytes `json:"pool_no_fa_bytes"`
	PoolMoE  Bytes `json:"pool_moe_bytes"`
}

// llamaFit are the constants the profile plans with.
var llamaFit = LlamaCppFit{ComputePerQuery: 8, ComputePerHidden: 10, ComputePerToken: 16,
	PoolFA: 19 * MiB, PoolNoFA: 52 * MiB, PoolMoE: 62 * MiB}

// LlamaCppFitted returns the llama.cpp profile's fitted constants.
func LlamaCppFitted() LlamaCppFit { return llamaFit }

func (llamaCpp) describe(k key, in *Input, c *charges, l limits) (string, string) {
	cells := cellsOf(in, l)
	switch k {
	case keyContext:
		return "CUDA context + driver", "measured: " + in.Calibration.ID
	case keyLibrary:
		return "cuBLAS (loaded at the first GEMM)", "measured: " + in.Calibration.ID
	case keyWeights:
		return llamaModelBuffer(in), llamaWeightsDetail(in)
	case keyKV:
		return linefs("CUDA%d KV buffer (%d cells × %d %s)", plural(int(cells.streams), "stream", "streams"), llamaDev(in), cells.seq, cells.streams),
			llamaLayersOf(in) + "K " + string(in.Limits.KVDtype.normalize()) + ", V " + string(vDtype(in)) +
				", flash attention " + onOff(in.Serving.LlamaCpp.FlashAttn.on())
	case keySWA:
		return linefs("CUDA%d KV buffer, sliding-window layers (%d cells × %d %s)", plural(int(cells.streams), "stream", "streams"), llamaDev(in),
				cells.swaCells(in, c.kv.window), cells.streams),
			llamaLayersOf(in) + "PAD(min(cells, n_swa × seqs + n_ubatch), 256) (llama-kv-cache-iswa.cpp)"
	case keySSM:
		return "recurrent state (R + S)", linefs("%d %s", plural(int(cells.parallel), "sequence slot", "sequence slots"), cells.parallel)
	case keyEngineCompute:
		return linef("CUDA%d compute buffer (n_ubatch %d)", llamaDev(in), cells.ubatch), llamaComputeDetail(in)
	case keyCUDAPool:
		return "CUDA pool at the first decode", "estimated from H200 measurements (docs/engine-results.md)"
	case keyVisionTower:
		return "vision tower (mmproj)", "mmproj tensors"
	}
	return "", ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (p llamaCpp) report(in *Input, s *shape, pl *Plan) {
	l := resolve(&in.Limits)
	cells := cellsOf(in, l)
	layers, _ := gpuLayers(in)
	a := &LlamaCppAnswer{CtxSize: int(cells.nCtx), Parallel: int(cells.parallel), Unified: cells.unified,
		CtxSeq: int(cells.seq), Streams: int(cells.streams), FlashAttn: in.Serving.LlamaCpp.FlashAttn.on(),
		Ubatch: int(cells.ubatch), Layers: in.Model.NumLayers() + 1, GPULayers: layers + 1}
	if len(s.sliding) > 0 {
		a.SWACells = int(cells.swaCells(in, s.maxWindow))
	}
	a.LayersThatFit = layersThatFit(in, s, l)
	a.FullOffload = a.LayersThatFit == a.Layers
	m := &in.Model
	host := []Item{{Key: "token_embd", Name: "token_embd (CPU_Mapped)", Tier: TierModelResident,
		Bytes: classBytes(m, "embedding"), Source: SourceExact, Detail: "the input embedding stays in host memory"},
		{Key: "output_buffer", Name: "logits output buffer (CUDA_Host)", Tier: TierEnginePersistent,
			Bytes: satMul3(int64(m.VocabSize), cells.parallel, 4), Source: SourceExact, Detail: "n_vocab × n_seq_max × 4 B"}}
	if layers < m.NumLayers() {
		host = llamaHostLayers(host, in, &cells, m.NumLayers()-layers)
	}
	pl.Engine = &EngineReport{Engine: EngineLlamaCpp, Version: LlamaCppVersion, Launch: llamaLaunch(in, a),
		Host: host, LlamaCpp: a}
	llamaPoolNote(in, &cells, pl.Engine)
	if !pl.Fits && a.LayersThatFit > 0 && a.LayersThatFit < a.GPULayers {
		fit := *a
		fit.GPULayers = a.LayersThatFit
		launchThatFits(pl.Engine, llamaLaunch(in, &fit), a.GPULayers, a.LayersThatFit, a.Layers, "")
	}
}

// llamaPoolNote says, without flash attention, how far the CUDA pool can
// grow past the first decode that the plan charges: a ubatch over a full
// stream's cells needs attention's f16 copies at that n_kv, and ggml's pool
// keeps its high-water mark (llamaAttnCopies). It is stated, not charged:
// the H200 grid measured the first decode only.
func llamaPoolNote(in *Input, c *llamaCells, e *EngineReport) {
	if in.Serving.LlamaCpp.FlashAttn.on() {
		return
	}
	first, full := llamaAttnCopies(in, c), llamaAttnCopiesAt(in, c, c.seq)
	if full-first < 64*MiB {
		return
	}
	e.Notes = append(e.Notes, printf.Sprintf("with flash attention off the CUDA pool grows as the cache fills: a ubatch of %d "+
		"over all %d cells of a stream needs %s of f16 attention copies, %s more than the first decode the plan charges "+
		"(-fa on needs none)", c.ubatch, c.seq, full, full-first))
}

// layersThatFit is the largest -ngl whose plan fits: the weights and KV of
// every layer left out move to the host.
func layersThatFit(in *Input, s *shape, l limits) int {
	t := *in
	budget := seedBudget(in)
	n := in.Model.NumLayers() + 1
	return max(largest(1, n, func(ngl int) bool {
		t.Serving.LlamaCpp.GPULayers = ngl
		return compute(&t, s, l).total <= budget
	}), 0)
}
