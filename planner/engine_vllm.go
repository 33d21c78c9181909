package planner

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// This file is the vLLM profile (vLLM 0.22, the V1 engine; rules from
// ../shared/notes/engines.md, which cites the files below). vLLM takes a
// fraction of the device's total memory and gives its KV cache what the
// weights, the profiled activation peak, the memory outside torch and the
// CUDA-graph estimate leave:
//
//   - budget: total × gpu_memory_utilization (default 0.92); the CUDA
//     context made before the baseline snapshot is outside it, and start-up
//     fails when less than the budget is free (vllm/v1/worker/gpu_worker.py,
//     Worker.determine_available_memory; vllm/utils/mem_utils.py).
//   - pages: 2 × block_size × kv_heads × head_size × dtype per layer
//     (vllm/v1/kv_cache_interface.py, AttentionSpec.real_page_size_bytes);
//     MLA one head of kv_lora_rank + rope dim. Layers of several attention
//     types are grouped into KV-cache groups of the smallest type's layer
//     count, padded, sharing one block pool; num_blocks = available //
//     (page × group size) (vllm/v1/core/kv_cache_utils.py).
//   - a sliding-window request holds cdiv(min(sw − 1 +
//     max_num_batched_tokens, max_model_len), block) + 1 blocks per group.
//   - defaults: max_num_seqs 256 and max_num_batched_tokens 2048, 1024 and
//     8192 on a GPU of 70 GiB or more that is not an A100
//     (vllm/engine/arg_utils.py).
//
// What vLLM measures at start is estimated: the activation peak from the
// sampler's warm-up over min(max_num_seqs, max_num_batched_tokens) rows of
// logits (vllm/v1/worker/gpu_model_runner.py, GPUModelRunner.profile_run
// and _dummy_sampler_run) plus max_num_batched_tokens × hidden × 4 B; the
// warm-up's bytes per row and vocab entry are measured for each of its two
// paths (vllmSamplerEntry), and the torch-native one matches llm-d's
// published H100 figures (Llama-3.1-8B 4.76 GiB, Qwen3-0.6B 5.56 GiB,
// gpt-oss-20b 7.38 GiB; within 0.4 %); memory outside torch 0.15 GiB at
// TP 1 (llm-d's planner constant). A vision checkpoint's profile runs
// its encoder on dummy images first (engine_vllm_vision.go), and the
// peak is the larger of that and the text pass beside the encoder cache.
//
// Older releases differ (vllmRanges; docs/architecture.md, "Engine
// releases", cites each rule): V0 profiles a forward pass over
// max_num_batched_tokens (max(max_model_len, 2048) without chunked
// prefill) and then V1's sampler warm-up, defaults gpu_memory_utilization to 0.9 and captures CUDA
// graphs after sizing the KV cache; V1 before 0.9 gives an A100 the big
// GPU's batch defaults (and before 0.8.5 gives them to an H100 or H200 by
// name, not to every GPU of 70 GiB); before 0.9.1 (the hybrid KV-cache manager) a model
// mixing sliding-window and full attention is charged full-length blocks
// in every layer; 0.11 and 0.12 profile Qwen3-VL on a video
// (engine_vllm_video.go); before 0.17 the sampler's warm-up sorts (from
// 0.17 the native path is a Triton kernel, vllmSamplerEntry); before 0.21 the
// CUDA-graph estimate is outside the budget; before 0.22 the
// utilization's default is 0.9. A start whose log names Model Runner V2
// has that runner's profile and sampler state (engine_vllm_mrv2.go).

// EngineVLLM is vLLM.
const EngineVLLM EngineName = "vllm"

// VLLMVersion is the vLLM release the newest range's rules were read from.
const VLLMVersion = "vLLM 0.22 (V1 engine)"

// VLLMV0Release is the release a log of vLLM's V0 engine that states none
// is planned as: the last minor series whose default engine was V0 (V1 is
// from 0.8, vllmRanges). Every V0 release the profile covers shares the
// one range's rules, so which of them a log ran decides nothing here.
const VLLMV0Release = "0.7"

var vllmProfile = Profile{Name: EngineVLLM, Label: "vLLM", Versions: vllmRanges[:],
	KVDtypes: []KVDtype{KVDtypeBF16, KVDtypeF16, KVDtypeFP8}, Loads: ModelHF,
	knobs: []Knob{KnobMaxSeqLen, KnobKVDtype, KnobMaxBatch, KnobPrefillTokens, KnobBlockTokens, KnobVision}, pool: true}

// vllmRules are the rules that changed between vLLM releases, one set
// per range of releases (vllmBands).
type vllmRules struct {
	// utilization is gpu_memory_utilization's default.
	utilization float64
	// v0 is the V0 engine: its profile run is a forward pass over
	// max_num_batched_tokens tokens, its batch defaults are V0's, and it
	// captures CUDA graphs after sizing the KV cache, outside the budget.
	v0 bool
	// bigByName gives V1's larger batch defaults to a GPU whose name holds
	// H100 or H200, whatever its memory; from 0.8.5 they go by memory.
	bigByName bool
	// notA100 keeps an A100 on the small V1 batch defaults at 80 GB.
	notA100 bool
	// hybrid is the hybrid KV-cache manager: sliding-window layers get
	// their own groups. Without it a model that mixes them with full
	// attention is charged full-length blocks in every layer.
	hybrid bool
	// graphsInBudget takes the CUDA-graph estimate out of the budget
	// before the KV cache is sized; before, graphs sit outside it.
	graphsInBudget bool
	// videoTimestamps counts a Qwen3-VL video's tokens as its embeddings
	// × 12.5, so the profile encodes a video (engine_vllm_video.go).
	videoTimestamps bool
	// tritonSampler masks the native path's top-k/top-p with the Triton
	// kernel from 8 rows (vllmSamplerEntry): 14 B per entry, not the sort's 38.
	tritonSampler bool
}

// vllmRanges are the releases the profile covers, oldest first; the rules
// of each are vllmBands' entry at its index (docs/architecture.md, "Engine
// releases", says where each was read and pins each boundary to the
// upstream commit that made it and the first release cut after it). Both are static data: a profile
// built by code at start would cost the WebAssembly module its init code.
var vllmRanges = [...]VersionRange{
	{Name: "V0 engine", From: Version{n: [3]int32{0, 4, 0}}, Until: Version{n: [3]int32{0, 8, 0}}, ReadAt: "vLLM 0.6 (V0 engine)"},
	{Name: "V1 engine", From: Version{n: [3]int32{0, 8, 0}}, Until: Version{n: [3]int32{0, 8, 5}}, ReadAt: "vLLM 0.8 (V1 engine)"},
	{Name: "V1, batch defaults by memory", From: Version{n: [3]int32{0, 8, 5}}, Until: Version{n: [3]int32{0, 9, 0}}, ReadAt: "vLLM 0.8 (V1 engine)"},
	{Name: "V1 engine", From: Version{n: [3]int32{0, 9, 0}}, Until: Version{n: [3]int32{0, 9, 1}}, ReadAt: "vLLM 0.9 (V1 engine)"},
	{Name: "V1, hybrid KV-cache manager", From: Version{n: [3]int32{0, 9, 1}}, Until: Version{n: [3]int32{0, 11, 0}}, ReadAt: "vLLM 0.10 (V1 engine)"},
	{Name: "V1, Qwen3-VL video profile", From: Version{n: [3]int32{0, 11, 0}}, Until: Version{n: [3]int32{0, 13, 0}}, ReadAt: "vLLM 0.11 (V1 engine)"},
	{Name: "V1, encoder budget in embeddings", From: Version{n: [3]int32{0, 13, 0}}, Until: Version{n: [3]int32{0, 17, 0}}, ReadAt: "vLLM 0.10 (V1 engine)"},
	{Name: "V1, Triton top-k/top-p", From: Version{n: [3]int32{0, 17, 0}}, Until: Version{n: [3]int32{0, 21, 0}}, ReadAt: "vLLM 0.18 (V1 engine)"},
	{Name: "V1, CUDA graphs in the budget", From: Version{n: [3]int32{0, 21, 0}}, Until: Version{n: [3]int32{0, 22, 0}}, ReadAt: "vLLM 0.21 (V1 engine)"},
	{Name: "V1 engine", From: Version{n: [3]int32{0, 22, 0}}, ReadAt: VLLMVersion},
}

var vllmBands = [len(vllmRanges)]vllmRules{
	{utilization: 0.9, v0: true},
	{utilization: 0.9, bigByName: true},
	{utilization: 0.9},
	{utilization: 0.9, notA100: true},
	{utilization: 0.9, notA100: true, hybrid: true},
	{utilization: 0.9, notA100: true, hybrid: true, videoTimestamps: true},
	{utilization: 0.9, notA100: true, hybrid: true},
	{utilization: 0.9, notA100: true, hybrid: true, tritonSampler: true},
	{utilization: 0.9, notA100: true, hybrid: true, graphsInBudget: true, tritonSampler: true},
	{utilization: 0.92, notA100: true, hybrid: true, graphsInBudget: true, tritonSampler: true},
}

// vllmRulesOf returns the rules of in's vLLM release. It is not inlined:
// a plan calls it from many places (as profileOf).
//
//go:noinline
func vllmRulesOf(in *Input) *vllmRules {
	return &vllmBands[vllmProfile.band(in.Serving.Version)]
}

// VLLMOptions are `vllm serve` memory flags that Limits does not carry.
// Limits.MaxSeqLen is --max-model-len, Limits.MaxBatch --max-num-seqs (0:
// vLLM's default), Limits.MaxPrefillTokens --max-num-batched-tokens (0:
// default), Limits.BlockTokens --block-size (0: 16), Limits.KVDtype
// --kv-cache-dtype.
type VLLMOptions struct {
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization,omitempty"` // 0 means the release's default
	// KVCacheMemoryBytes is --kv-cache-memory-bytes: a fixed KV cache that
	// skips the profiled budget.
	KVCacheMemoryBytes Bytes `json:"kv_cache_memory_bytes,omitempty"`
	EnforceEager       bool  `json:"enforce_eager,omitempty"` // --enforce-eager: no CUDA graphs
	// MaxCaptureSize is --max-cudagraph-capture-size, the largest batch
	// captured as a CUDA graph (0: min(2 × max_num_seqs, 512)), and
	// CaptureSizes --cudagraph-capture-sizes, the sizes themselves (none:
	// vLLM's pattern up to the largest); VLLMGraphs. A pointer keeps the
	// options comparable.
	MaxCaptureSize int    `json:"max_cudagraph_capture_size,omitempty"`
	CaptureSizes   *[]int `json:"cudagraph_capture_sizes,omitempty"`
	// LLMClass is vLLM started as the Python LLM class rather than by
	// `vllm serve`: from the V1 engine on, its batch defaults are larger.
	LLMClass bool `json:"llm_class,omitempty"`
	// FlashInferSampler is V1 sampling top-k and top-p with FlashInfer's
	// kernel, which the log says (VLLMFlashInferSampler): its warm-up
	// takes less memory than the torch-native path, the default.
	FlashInferSampler bool `json:"flashinfer_sampler,omitempty"`
	// ModelRunnerV2 is V1 running Model Runner V2, which the log says
	// (VLLMModelRunnerV2, or its runner's file name): its profile samples
	// without top-k and top-p, and its sampler keeps per-request state
	// (engine_vllm_mrv2.go).
	ModelRunnerV2 bool `json:"model_runner_v2,omitempty"`
	// ActivationBytes and NonTorchBytes replace the estimates with what a
	// vLLM start-up log reported.
	ActivationBytes Bytes `json:"activation_bytes,omitempty"`
	NonTorchBytes   Bytes `json:"non_torch_bytes,omitempty"`
	// HostStartBytes and HostUsedBytes apply on a GPU whose memory is the
	// host's (Calibration.UnifiedMemory; engine_vllm_uma.go), where vLLM
	// reads the host's available memory as free: HostStartBytes is what
	// other processes and vLLM's own host side take between its first
	// memory snapshot and the end of its profile run, which it counts as
	// non-torch memory; HostUsedBytes is what the OS and other processes
	// hold when it starts. A log prints neither; 0 assumes none.
	HostStartBytes Bytes `json:"host_start_bytes,omitempty"`
	HostUsedBytes  Bytes `json:"host_used_bytes,omitempty"`
}

type vllm struct{}

func (vllm) validate(in *Input) error {
	o := &in.Serving.VLLM
	if u := o.GPUMemoryUtilization; u < 0 || u > 1 || u != u {
		return bad("serving.vllm.gpu_memory_utilization", "%v is out of range (0, 1]", u)
	}
	for _, f := range []struct {
		name string
		v    Bytes
	}{{"kv_cache_memory_bytes", o.KVCacheMemoryBytes}, {"activation_bytes", o.ActivationBytes}, {"non_torch_bytes", o.NonTorchBytes},
		{"host_start_bytes", o.HostStartBytes}, {"host_used_bytes", o.HostUsedBytes}} {
		if f.v < 0 || f.v > maxBudget {
			return bad("serving.vllm."+f.name, "%d is out of range [0, 1 PiB]", f.v)
		}
	}
	if err := validCaptureSizes(o); err != nil {
		return err
	}
	if o.ModelRunnerV2 && vllmRulesOf(in).v0 {
		return bad("serving.vllm.model_runner_v2", "Model Runner V2 is a V1 runner (vLLM 0.8 and later) only")
	}
	if o.FlashInferSampler && vllmRulesOf(in).v0 {
		return bad("serving.vllm.flashinfer_sampler", "V0's sampler is not modelled with FlashInfer; V1 (vLLM 0.8 and later) only")
	}
	return poolLayers(in)
}

// poolLayers refuses what the pool profiles do not model yet.
func poolLayers(in *Input) error {
	if in.Features.CUDAGraphs {
		return bad("features.cuda_graphs", "%s captures its graphs itself; use its own option", in.Serving.Engine)
	}
	for i := range in.Model.Layers {
		if in.Model.Layers[i].Kind == LayerRecurrent {
			return bad(layerField(i, "kind"), "recurrent layers are not modelled by the %s profile yet", in.Serving.Engine)
		}
	}
	return nil
}

func utilization(in *Input) float64 {
	if u := in.Serving.VLLM.GPUMemoryUtilization; u > 0 {
		return u
	}
	return vllmRulesOf(in).utilization
}

func fraction(total Bytes, f float64) Bytes { return Bytes(float64(total) * f) }

func (vllm) budget(in *Input) Bytes {
	return fraction(seedBudget(in), utilization(in))
}

// bigGPU reports whether vLLM's larger batch defaults apply: before 0.8.5
// to an H100 or H200 by its name; then 70 GiB or more as NVML reports it,
// so never a GPU whose memory is the host's (engine_vllm_uma.go), and from
// 0.9 not an A100.
func bigGPU(in *Input, r *vllmRules) bool {
	if gpu := in.Calibration.GPU; r.bigByName {
		return strings.Contains(gpu, "H100") || strings.Contains(gpu, "H200")
	}
	return in.Calibration.DeviceTotal >= 70*GiB && !vllmUMA(in) && !(r.notA100 && strings.Contains(in.Calibration.GPU, "A100"))
}

// normalize fills max_num_seqs, max_num_batched_tokens and block_size as
// the release does.
func (vllm) normalize(in *Input) {
	l, r := &in.Limits, vllmRulesOf(in)
	seqs, tokens := vllmBatchDefaults(in, r)
	l.MaxBatch = orDefaultInt(l.MaxBatch, seqs)
	l.MaxPrefillTokens = orDefaultInt(l.MaxPrefillTokens, tokens)
	l.BlockTokens = orDefaultInt(l.BlockTokens, 16)
}

// vllmBatchDefaults are max_num_seqs and max_num_batched_tokens when not
// given. V0: 256, and max(max_model_len, 2048) without chunked prefill,
// 2048 with it, which the OpenAI server turns on above 32,768 tokens. V1:
// by GPU memory and entry point, 256 and 2048 (serve) or 8192 (LLM), on a
// big GPU 1024 and 8192 or 16384.
func vllmBatchDefaults(in *Input, r *vllmRules) (seqs, tokens int) {
	if r.v0 {
		if in.Limits.MaxSeqLen > vllmV0LongContext {
			return 256, 2048
		}
		return 256, max(in.Limits.MaxSeqLen, 2048)
	}
	big, llm := boolInt(bigGPU(in, r)), boolInt(in.Serving.VLLM.LLMClass)
	return vllmV1Seqs[big], vllmV1Tokens[big][llm]
}

// vllmV1Seqs and vllmV1Tokens are V1's max_num_seqs by GPU size (small,
// big) and max_num_batched_tokens by GPU size and entry point (serve, LLM).
var (
	vllmV1Seqs   = [2]int{256, 1024}
	vllmV1Tokens = [2][2]int{{2048, 8192}, {8192, 16384}}
)

// vllmV0LongContext is the max_model_len past which V0's OpenAI server
// turns chunked prefill on by itself.
const vllmV0LongContext = 32 * 1024

// poolGeometry is a pool engine's KV layout: the bytes one block costs
// across a group's layer slots, and the groups a request holds blocks in.
type poolGeometry struct {
	blockBytes Bytes // page × group size
	block      int64
	full       int64 // full-attention groups
	windows    []swaGroups
	// tokens is the prefill chunk a sliding-window request's blocks
	// follow (max_num_batched_tokens).
	tokens int64
}

type swaGroups struct {
	window int
	groups int64
}

func vllmGeometry(in *Input, block int) poolGeometry {
	m, d := &in.Model, in.Limits.KVDtype.normalize()
	windows := vllmWindows(in)
	var page Bytes
	var buf [8]typeCount
	types := buf[:0] // layers by attention type: window 0 is full attention
	for i := range m.Layers {
		g := &m.Layers[i]
		switch g.Kind {
		case LayerFull, LayerSliding:
			page = max(page, satMul(int64(g.KVHeads), int64(d.RowBytes(g.KeyDim)+d.RowBytes(g.ValueDim))))
			types = addType(types, g.Window*boolInt(windows && g.Kind == LayerSliding), g.Count)
		case LayerMLA:
			page = max(page, d.RowBytes(g.LatentDim))
			types = addType(types, 0, g.Count)
		}
	}
	size := 0
	for _, t := range types {
		if size == 0 || t.layers < size {
			size = t.layers
		}
	}
	geo := poolGeometry{block: int64(block), blockBytes: satMul3(int64(block), int64(page), int64(size))}
	for _, t := range types {
		groups := ceilDiv(int64(t.layers), int64(size))
		if t.window == 0 {
			geo.full = groups
		} else {
			geo.windows = append(geo.windows, swaGroups{t.window, groups})
		}
	}
	return geo
}

// vllmWindows reports whether in's release keeps sliding-window layers to
// their window: V0 charges every layer full length; V1 before the hybrid
// KV-cache manager does so when a model mixes them with full attention
// (kv_cache_utils.py, unify_hybrid_kv_cache_specs).
func vllmWindows(in *Input) bool {
	r := vllmRulesOf(in)
	if r.hybrid {
		return true
	}
	if r.v0 {
		return false
	}
	for i := range in.Model.Layers {
		if k := in.Model.Layers[i].Kind; k == LayerFull || k == LayerMLA {
			return false
		}
	}
	return true
}

// typeCount is the number of layers of one attention type.
type typeCount struct{ window, layers int }

// addType adds n layers of window w, keeping ts sorted by window.
func addType(ts []typeCount, w, n int) []typeCount {
	for i := range ts {
		if ts[i].window == w {
			ts[i].layers += n
			return ts
		}
	}
	ts = append(ts, typeCount{w, n})
	for j := len(ts) - 1; j > 0 && ts[j].window < ts[j-1].window; j-- {
		ts[j], ts[j-1] = ts[j-1], ts[j]
	}
	return ts
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// perRequest is the blocks one request of n tokens holds, chunked prefill
// of tokens tokens a step.
func (g *poolGeometry) perRequest(n, tokens int64) int64 {
	full := ceilDiv(n, g.block)
	b := g.full * full
	for _, w := range g.windows {
		b += w.groups * min(ceilDiv(min(int64(w.window)-1+tokens, n), g.block)+1, full)
	}
	return b
}

// lenFor is the longest request, at most hi tokens, of which b fit at
// once in a pool of blocks blocks, 0 when not one token does.
func (g *poolGeometry) lenFor(blocks int64, b, hi int) int {
	return max(largest(1, hi, func(n int) bool { return int64(satMul(int64(b), g.perRequest(int64(n), g.tokens))) <= blocks }), 0)
}

func (vllm) charge(in *Input, s *shape, l limits, c *charges) {
	o, m := &in.Serving.VLLM, &in.Model
	c.set(keyWeights, m.Weights.Bytes)
	if in.Features.Vision && m.Vision != nil {
		c.set(keyVisionTower, vllmTowerBytes(in, m.Vision))
	}
	r := vllmRulesOf(in)
	c.set(keyActivation, orDefault(o.ActivationBytes, vllmActivation(in, r, l)))
	c.set(keyNonTorch, vllmNonTorch(in))
	if vllmMRV2(in, r) {
		c.set(keySamplerState, vllmMRV2State(in, l))
	}
	if r.graphsInBudget && !o.EnforceEager {
		var b Bytes
		c.graphs, b = vllmGraphCharge(in, l)
		c.set(keyGraphEstimate, b)
	}
	var others Bytes
	for _, b := range c.amount {
		others = satAdd(others, b)
	}
	geo := vllmGeometry(in, l.block)
	geo.tokens = int64(l.prefill)
	need := satMul(geo.perRequest(int64(l.seqLen), geo.tokens), int64(geo.blockBytes))
	budget := budgetOf(in)
	pool := max(budget-others, 0)
	if o.KVCacheMemoryBytes > 0 {
		pool = o.KVCacheMemoryBytes
		if need > pool { // a fixed cache too small for one request: over budget by what it lacks
			need = max(pool, satAdd(budget-others, need))
		}
	}
	c.setPool(pool, need, geo)
}

// setPool charges a pool engine's KV cache: the pool it allocates, or what
// one request needs when that is more (the plan then does not fit).
func (c *charges) setPool(pool, need Bytes, geo poolGeometry) {
	c.pool = geo
	c.set(keyKV, max(pool, need))
	c.kv = kvCharge{global: max(pool, need), globalBlock: geo.blockBytes}
	if geo.blockBytes > 0 {
		c.kv.blocks = int64(pool / geo.blockBytes)
	}
}

// vllmActivation estimates the profiled activation peak (see above).
func vllmActivation(in *Input, r *vllmRules, l limits) Bytes {
	m := &in.Model
	rows := int64(min(l.batch, l.prefill))
	if r.v0 {
		return max(vllmV0Forward(in), vllmV0Sampler(in, rows))
	}
	mrv2 := vllmMRV2(in, r)
	text := satMul3(int64(l.prefill), int64(m.HiddenSize), 4)
	switch {
	case lastStage(in) && mrv2:
		text = satAdd(vllmMRV2Sampler(in, rows), text)
	case lastStage(in):
		text = satAdd(vllmSamplerBytes(in, rows), text)
	}
	if mrv2 { // MRV2's forward pass outweighs its sampler for a large model
		text = max(text, vllmV0Forward(in))
	}
	encoder, held := vllmEncoder(in, l)
	return max(encoder, satAdd(held, text))
}

// vllmV0Sampler is V0's profile run at its sampling step, on the last
// stage: the sampler's warm-up beside the forward pass's 16-bit hidden
// states, which execute_model still holds while compute_logits and sample
// run (worker/model_runner.py, ModelRunner.execute_model).
func vllmV0Sampler(in *Input, rows int64) Bytes {
	hidden := satMul3(int64(max(in.Limits.MaxPrefillTokens, 1)), int64(in.Model.HiddenSize), 2)
	if !lastStage(in) {
		return hidden
	}
	return satAdd(vllmSamplerBytes(in, rows), hidden)
}

// lastStage reports whether in's rank is its pipeline's last stage, the
// only one whose V1 profile run warms the sampler up
// (vllm/v1/worker/gpu_model_runner.py, GPUModelRunner.profile_run: `if
// get_pp_group().is_last_rank: … self._dummy_sampler_run(…)`).
func lastStage(in *Input) bool {
	r := in.Rank
	return r == nil || r.Stage >= r.Layout.pp()-1
}

// vllmV0Forward estimates V0's profile run, a forward pass over
// max_num_batched_tokens tokens (worker/model_runner.py,
// GPUModelRunnerBase.profile_run). Its peak is the MLP's: every token's
// gate-and-up output and activation (3 × intermediate) beside three
// hidden-sized tensors (the layer's input, its normalized copy and the
// residual), 16-bit. The run then samples, as V1's warm-up does, with
// top-k and top-p over the whole vocabulary (`SamplingParams(top_p=0.99,
// top_k=self.vocab_size - 1)`, "Enable top-k sampling to reflect the
// accurate memory usage"), after the forward pass has freed its
// activations, so the peak is the larger of the two (vllmActivation).
// Held to issue #10517's RTX 3090 log at 20k and 29k tokens
// (TestVLLMV0Run).
func vllmV0Forward(in *Input) Bytes {
	m := &in.Model
	tokens := int64(max(in.Limits.MaxPrefillTokens, 1))
	return satMul(tokens, 2*(3*int64(m.IntermediateSize)+3*int64(m.HiddenSize)))
}

func (vllm) describe(k key, in *Input, c *charges, l limits) (string, string) {
	switch k {
	case keyWeights:
		return "model weights", c.weightsDetail(&in.Model)
	case keyVisionTower:
		return "vision tower", vllmTowerDetail(in, c)
	case keyActivation:
		if in.Serving.VLLM.ActivationBytes > 0 {
			return "activation peak (torch)", "as reported"
		}
		if vllmRulesOf(in).v0 {
			return "activation peak (torch)", c.linef("estimated: V0's profile run over max_num_batched_tokens %d: tokens × (3 × intermediate + 3 × hidden) × 2 B, or its sampler's min(max_num_seqs %d, tokens) × vocab × 38 B + tokens × hidden × 2 B when more",
				int64(in.Limits.MaxPrefillTokens), int64(l.batch))
		}
		rows := int64(min(l.batch, l.prefill))
		if vllmMRV2(in, vllmRulesOf(in)) {
			return "activation peak (torch)", c.join(c.linef("estimated (Model Runner V2): the larger of max_num_batched_tokens %d × (3 × intermediate + 3 × hidden) × 2 B and min(max_num_seqs %d, tokens) × vocab × %d B (no top-k/top-p) + tokens × hidden × 4 B",
				int64(l.prefill), int64(l.batch), int64(vllmMRV2SamplerEntry)), vllmEncoderDetail(in, c, l))
		}
		return "activation peak (torch)", c.join(c.linefs("estimated: min(max_num_seqs %d, max_num_batched_tokens %d) × vocab × %d B (%s) + tokens × hidden × 4 B",
			vllmSamplerPath(in, rows), int64(l.batch), int64(l.prefill), vllmSamplerEntry(in, rows)), vllmEncoderDetail(in, c, l))
	case keyNonTorch:
		if in.Serving.VLLM.NonTorchBytes > 0 {
			return "non-torch memory", "as reported"
		}
		return "non-torch memory", vllmNonTorchDetail(in, c)
	case keySamplerState:
		return "sampler state (Model Runner V2)", c.linef("max_num_seqs %d × (vocab + 2 × ⌈vocab ÷ 32⌉) × 4 B: the penalties' output-token counts and two bit masks", int64(l.batch))
	case keyGraphEstimate:
		if in.Calibration.GraphExec == 0 {
			return c.linef("CUDA graphs (%d graphs, estimated)", c.graphs),
				c.linef("estimated: %d graphs (PIECEWISE and FULL decode) × %d decoder layers × %d KiB, the corpus's median estimate (it spans %d to %d KiB)",
					c.graphs, int64(in.Model.NumLayers()), int64(VLLMGraphLayerBytes/KiB), int64(VLLMGraphLayerLow/KiB), int64(VLLMGraphLayerHigh/KiB))
		}
		return c.linef("CUDA graphs (%d capture sizes)", c.graphs),
			c.join("capture sizes × measured graph bytes: ", in.Calibration.ID)
	case keyKV:
		return poolName(c, l), c.linef("%d blocks × %B (%d tokens × page × layers per group)", c.kv.blocks, int64(c.kv.globalBlock), int64(l.block))
	}
	return "", ""
}

func (vllm) kvDtypeAllowed(in *Input, d KVDtype) bool { return true }

// layoutLaunch adds --tensor-parallel-size, --pipeline-parallel-size,
// --data-parallel-size and --enable-expert-parallel
// (vllm/engine/arg_utils.py).
func (vllm) layoutLaunch(e *EngineReport, rin *Input, m *Model) {
	poolLayoutLaunch(e, &rin.Rank.Layout, " --tensor-parallel-size ", " --pipeline-parallel-size ", " --data-parallel-size ",
		" --enable-expert-parallel")
}

func poolName(c *charges, l limits) string {
	return c.linef("KV cache (%d blocks of %d tokens)", c.kv.blocks, int64(l.block))
}

func (vllm) report(in *Input, s *shape, p *Plan) {
	l := resolve(&in.Limits)
	geo := vllmGeometry(in, l.block)
	a := poolAnswer(in, p, geo, utilization(in), int64(l.prefill))
	r := &EngineReport{Engine: EngineVLLM, Version: vllmProfile.rangeOf(in).ReadAt, Release: in.Serving.Version, Launch: vllmLaunch(in, l), Pool: a}
	vllmGraphsOutside(in, r)
	vllmUMANotes(in, r, p.Budget)
	left := seedBudget(in) - p.Budget
	if ctx := in.Calibration.Context; ctx > left {
		r.Notes = append(r.Notes, printf.Sprintf("the CUDA context (%s) is more than the %s gpu_memory_utilization leaves: "+
			"vLLM refuses to start when less than its budget is free", ctx, left))
	}
	if a.MaxConcurrency < float64(l.batch) {
		r.Notes = append(r.Notes, printf.Sprintf("the KV cache holds %.2f requests of %d tokens at once, fewer than max_num_seqs %d: the rest wait",
			a.MaxConcurrency, l.seqLen, l.batch))
	}
	p.Engine = r
}

// vllmGraphsOutside notes the CUDA graphs of a release that captures them
// after it sizes the KV cache: their memory is on top of the budget.
func vllmGraphsOutside(in *Input, r *EngineReport) {
	if !vllmRulesOf(in).graphsInBudget && !in.Serving.VLLM.EnforceEager {
		r.Notes = append(r.Notes, "this release captures CUDA graphs after it sizes the KV cache: their memory is outside gpu_memory_utilization, on top of the plan")
	}
}

// poolAnswer states a pool engine's KV cache in its own terms.
func poolAnswer(in *Input, p *Plan, geo poolGeometry, frac float64, tokens int64) *PoolAnswer {
	l := resolve(&in.Limits)
	pool := Bytes(0)
	for _, it := range p.Items {
		if it.Key == "kv" {
			pool = it.Bytes
		}
	}
	if !p.Fits {
		pool = max(p.Budget-(p.Total-pool), 0)
	}
	if in.Serving.VLLM.KVCacheMemoryBytes > 0 {
		pool = in.Serving.VLLM.KVCacheMemoryBytes
	}
	a := &PoolAnswer{Fraction: frac, PoolBytes: pool, BlockTokens: l.block}
	if geo.blockBytes <= 0 {
		return a
	}
	a.Blocks = int64(pool / geo.blockBytes)
	groups := geo.full
	for _, w := range geo.windows {
		groups += w.groups
	}
	a.Tokens = a.Blocks / max(groups, 1) * geo.block
	if per := geo.perRequest(int64(l.seqLen), tokens); per > 0 {
		a.MaxConcurrency = float64(int64(float64(a.Blocks)/float64(per)*100)) / 100
	}
	a.MaxModelLen = max(largest(1, maxSeqLen, func(n int) bool { return geo.perRequest(int64(n), tokens) <= a.Blocks }), 0)
	a.MaxModelLen = trainedCap(in, a.MaxModelLen)
	a.LongestRequest = min(a.MaxModelLen, l.seqLen)
	return a
}

func vllmLaunch(in *Input, l limits) string {
	var b strings.Builder
	o := &in.Serving.VLLM
	b.WriteString("vllm serve " + modelArg(in) + " --max-model-len " + itoa(l.seqLen) + " --max-num-seqs " + itoa(l.batch))
	b.WriteString(" --max-num-batched-tokens " + itoa(l.prefill) + " --block-size " + itoa(l.block))
	b.WriteString(" --gpu-memory-utilization " + strconv.FormatFloat(utilization(in), 'f', -1, 64))
	if o.KVCacheMemoryBytes > 0 {
		b.WriteString(" --kv-cache-memory-bytes " + strconv.FormatInt(int64(o.KVCacheMemoryBytes), 10))
	}
	d := in.Limits.KVDtype.normalize()
	if d == KVDtypeFP8 {
		b.WriteString(" --kv-cache-dtype fp8")
	} else {
		b.WriteString(" --kv-cache-dtype auto")
	}
	if o.EnforceEager {
		b.WriteString(" --enforce-eager")
	}
	if o.MaxCaptureSize > 0 {
		b.WriteString(" --max-cudagraph-capture-size " + itoa(o.MaxCaptureSize))
	}
	if o.CaptureSizes != nil {
		b.WriteString(" --cudagraph-capture-sizes")
		for _, n := range *o.CaptureSizes {
			b.WriteString(" " + itoa(n))
		}
	}
	b.WriteString(convertFlag(in.Model.Weights.Converted))
	return b.String()
}

// trainedCap caps a longest request at the model's trained context, past
// which the engines refuse a max_model_len without an override.
func trainedCap(in *Input, n int) int {
	if c := in.Model.MaxContext; c > 0 && n > c {
		return c
	}
	return n
}
