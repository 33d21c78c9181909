package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// This file is the SGLang profile (SGLang 0.5; rules from
// ../shared/notes/engines.md, which cites the files below). SGLang keeps a
// static fraction of the memory free at start for weights and the KV pool
// and leaves the rest to cuBLAS, activations and CUDA graphs:
//
//   - KV pool: rest = free_after_load − free_at_start × (1 −
//     mem_fraction_static), free_at_start the memory free after the CUDA
//     context and the communicators (init_torch_distributed's return, the
//     argument of init_memory_pool), so both are outside the fraction, and
//     so is cuBLAS's reserve (init_cublas runs after init_memory_pool):
//     model_runner.py, ModelRunner.initialize and profile_max_num_token at
//     0.4; model_runner_kv_cache_mixin.py at 0.5, the same line.
//     tokens = rest // cell, rounded down to the page; cell = kv_heads ×
//     (head_dim + v_head_dim) × layers × dtype bytes
//     (model_runner_kv_cache_mixin.py, pool_configurator.py). Sliding-window
//     layers get swa_full_tokens_ratio (0.8) × the full pool's tokens.
//   - mem_fraction_static's default: round((gpu − reserve) / gpu, 3) with
//     reserve MB = 512 + max(chunked_prefill, 2048) × 1.5 + cuda_graph_max_bs
//     × 2 + tp × pp / 8 × 1024, at least 10 GiB on GPUs over 60 GB, the
//     chunk and graph batch tiered by GPU memory
//     (server_args.py, ServerArgs._handle_gpu_memory_settings).
//   - ReqToTokenPool: int32 [max_running_requests + 1, context_len], its
//     default request count min(max(tokens / context_len × 512, 2048), 4096)
//     [2nd], allocated after the pool is sized, from the rest.
//
// Older releases differ (sglangRanges; docs/architecture.md, "Engine
// releases", cites each rule): 0.4 takes mem_fraction_static by TP alone
// (from 0.4.8 by GPU memory and TP × PP, sglangTieredFraction), keeps every layer in one full pool (the sliding-window pools came with
// 0.4.9), and loads a checkpoint's vision tower whatever the page's vision
// switch says.

// EngineSGLang is SGLang.
const EngineSGLang EngineName = "sglang"

// SGLangVersion is the SGLang release the newest range's rules were read from.
const SGLangVersion = "SGLang 0.5"

var sglangProfile = Profile{Name: EngineSGLang, Label: "SGLang", Versions: sglangRanges[:],
	KVDtypes: []KVDtype{KVDtypeBF16, KVDtypeF16, KVDtypeFP8}, Loads: ModelHF,
	knobs: []Knob{KnobMaxSeqLen, KnobKVDtype, KnobVision}, pool: true}

// sglangRules are the rules that changed between SGLang releases, one set
// per range of releases (sglangBands).
type sglangRules struct {
	// byTP is 0.4's mem_fraction_static default, by tensor-parallel size
	// alone (0.88, 0.87 at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16); without
	// it, 0.5's reserve formula.
	byTP bool
	// byGPU is 0.4.8's default: round((gpu − reserve) / gpu, 3) with the
	// reserve by GPU memory and TP × PP (sglangTieredFraction).
	byGPU bool
	// swa gives sliding-window layers their own pool; without it every
	// layer's cell is in the one full pool.
	swa bool
	// towerAlways loads a checkpoint's vision tower whatever the page's
	// vision switch says: its weights are in `mem usage`.
	towerAlways bool
}

// sglangRanges are the releases the profile covers, oldest first; the
// rules of each are sglangBands' entry at its index (docs/architecture.md,
// "Engine releases", says where each was read).
var sglangRanges = [...]VersionRange{
	{From: Version{n: [3]int32{0, 4, 0}}, Until: Version{n: [3]int32{0, 4, 8}}, ReadAt: "SGLang 0.4.4"},
	{Name: "fraction by GPU memory", From: Version{n: [3]int32{0, 4, 8}}, Until: Version{n: [3]int32{0, 4, 9}}, ReadAt: "SGLang 0.4.8"},
	{Name: "sliding-window pools", From: Version{n: [3]int32{0, 4, 9}}, Until: Version{n: [3]int32{0, 5, 0}}, ReadAt: "SGLang 0.4.9"},
	{From: Version{n: [3]int32{0, 5, 0}}, ReadAt: SGLangVersion},
}

var sglangBands = [len(sglangRanges)]sglangRules{
	{byTP: true, towerAlways: true},
	{byGPU: true, towerAlways: true},
	{byGPU: true, swa: true, towerAlways: true},
	{swa: true},
}

// sglangRulesOf returns the rules of in's SGLang release. It is not
// inlined: a plan calls it from many places.
//
//go:noinline
func sglangRulesOf(in *Input) *sglangRules {
	return &sglangBands[sglangProfile.band(in.Serving.Version)]
}

// sglangByTP is 0.4's mem_fraction_static default: from tensor-parallel
// size at, the fraction (server_args.py, ServerArgs.__post_init__).
var sglangByTP = [...]struct {
	tp   int
	frac float64
}{{16, 0.79}, {8, 0.81}, {4, 0.85}, {2, 0.87}, {1, 0.88}}

// SGLangOptions are `python -m sglang.launch_server` memory flags that
// Limits does not carry. Limits.MaxSeqLen is --context-length,
// Limits.MaxBatch --max-running-requests (0: derived), Limits.MaxPrefillTokens
// --chunked-prefill-size (0: tiered default), Limits.BlockTokens --page-size
// (0: 1), Limits.KVDtype --kv-cache-dtype.
type SGLangOptions struct {
	MemFractionStatic float64 `json:"mem_fraction_static,omitempty"` // 0: SGLang's formula
	CUDAGraphMaxBS    int     `json:"cuda_graph_max_bs,omitempty"`   // 0: tiered default
	// ChunkedPrefillOff is --chunked-prefill-size -1: prefill is not
	// chunked, and the default fraction's reserve is sized by
	// max_prefill_tokens instead.
	ChunkedPrefillOff bool `json:"chunked_prefill_off,omitempty"`
	// SWAFullTokensRatio is --swa-full-tokens-ratio; 0 means 0.8.
	SWAFullTokensRatio float64 `json:"swa_full_tokens_ratio,omitempty"`
}

// sglang is SGLang's rules. Its knobs leave out the chunked prefill,
// which also moves its budget (mem_fraction_static): a lever of one knob
// against a fixed budget cannot state that.
type sglang struct{}

func (sglang) validate(in *Input) error {
	o := &in.Serving.SGLang
	if f := o.MemFractionStatic; f < 0 || f > 1 || f != f {
		return bad("serving.sglang.mem_fraction_static", "%v is out of range (0, 1]", f)
	}
	if r := o.SWAFullTokensRatio; r < 0 || r > 1 || r != r {
		return bad("serving.sglang.swa_full_tokens_ratio", "%v is out of range (0, 1]", r)
	}
	if o.ChunkedPrefillOff && in.Limits.MaxPrefillTokens > 0 {
		return bad("serving.sglang.chunked_prefill_off", "is set with limits.max_prefill_tokens %d: --chunked-prefill-size is one or the other", in.Limits.MaxPrefillTokens)
	}
	if err := inRange("serving.sglang.cuda_graph_max_bs", o.CUDAGraphMaxBS, 0, 1<<16); err != nil {
		return err
	}
	return poolLayers(in)
}

// sglangTier is SGLang's defaults by GPU memory: below mib, the chunked
// prefill size and cuda_graph_max_bs (at TP 1).
var sglangTiers = []struct{ mib, chunk, graphBS int }{
	{20 << 10, 2048, 8}, {35 << 10, 2048, 24}, {60 << 10, 4096, 32}, {90 << 10, 8192, 256}, {160 << 10, 8192, 256},
	{math.MaxInt32, 16384, 512},
}

func sglangTier(in *Input) (chunk, graphBS int) {
	mib := int(in.Calibration.DeviceTotal / MiB)
	for _, t := range sglangTiers {
		if mib < t.mib {
			return t.chunk, t.graphBS
		}
	}
	return 16384, 512
}

// sglangMaxPrefill is --max-prefill-tokens' default, which sizes the
// default fraction's reserve when prefill is not chunked
// (server_args.py, _handle_gpu_memory_settings: `max(chunked_prefill_size,
// 2048)` when it is positive, else `max(max_prefill_tokens, 2048)`, in
// the 0.5-era copies [2nd]).
const sglangMaxPrefill = 16384

// MemFractionStatic reports SGLang's default mem_fraction_static for in's
// GPU and limits (the formula above, with a layout's TP × PP for a rank).
func memFractionStatic(in *Input) float64 {
	if f := in.Serving.SGLang.MemFractionStatic; f > 0 {
		return f
	}
	if sglangRulesOf(in).byTP {
		tp := rankTP(in)
		for _, t := range sglangByTP {
			if tp >= t.tp {
				return t.frac
			}
		}
	}
	if sglangRulesOf(in).byGPU {
		return sglangTieredFraction(in)
	}
	chunk, graphBS := sglangTier(in)
	chunk = orDefaultInt(in.Limits.MaxPrefillTokens, chunk)
	if in.Serving.SGLang.ChunkedPrefillOff {
		chunk = sglangMaxPrefill
	}
	graphBS = orDefaultInt(in.Serving.SGLang.CUDAGraphMaxBS, graphBS)
	gpu := float64(in.Calibration.DeviceTotal / MiB)
	reserve := 512 + float64(max(chunk, 2048))*1.5 + float64(graphBS)*2 + float64(modelParallel(in))*1024.0/8
	if gpu > 60*1024 {
		reserve = max(reserve, 10*1024)
	}
	return math.Round((gpu-reserve)/gpu*1000) / 1000
}

// sglangReserveTiers are 0.4.8's reserves by GPU memory: below mib MiB,
// base + perRank × TP × PP GiB; above the last, 32 GiB
// (python/sglang/srt/server_args.py, ServerArgs.__post_init__, from
// sgl-project/sglang PR #7054, "Simplify the heuristics for setting
// --mem-fraction-static", merged 2025-06-10, before the v0.4.8 tag).
var sglangReserveTiers = [...]struct {
	mib           int
	base, perRank float64
}{{35 << 10, 2.8, 0.1}, {90 << 10, 9.5, 0.5}, {160 << 10, 12, 0.5}}

// sglangTieredFraction is 0.4.8's default mem_fraction_static.
func sglangTieredFraction(in *Input) float64 {
	gpu := float64(in.Calibration.DeviceTotal / MiB)
	reserve := 32.0 * 1024
	for _, t := range sglangReserveTiers {
		if gpu < float64(t.mib) {
			reserve = (t.base + t.perRank*float64(modelParallel(in))) * 1024
			break
		}
	}
	return math.Round((gpu-reserve)/gpu*1000) / 1000
}

// normalize makes the page one token by default (--page-size 1).
func (sglang) normalize(in *Input) {
	in.Limits.BlockTokens = orDefaultInt(in.Limits.BlockTokens, 1)
}

func (sglang) kvDtypeAllowed(in *Input, d KVDtype) bool { return true }

// layoutLaunch adds --tp, --pp, --dp and --ep-size
// (sglang/srt/server_args.py).
func (sglang) layoutLaunch(e *EngineReport, rin *Input, m *Model) {
	poolLayoutLaunch(e, &rin.Rank.Layout, " --tp ", " --pp ", " --dp ", " --ep-size ")
}

// budget is mem_fraction_static of the memory free at start, with what
// sits outside the fraction on top of it: the CUDA context and the
// communicators, allocated before SGLang measures that memory, and cuBLAS's
// reserve, allocated after the pool (see the file's header).
func (sglang) budget(in *Input) Bytes {
	before := in.Calibration.Context
	if r := in.Rank; r != nil {
		before += r.Comm
	}
	return before + in.Calibration.LibraryReserve + fraction(max(seedBudget(in)-before, 0), memFractionStatic(in))
}

func swaRatio(in *Input) float64 {
	if r := in.Serving.SGLang.SWAFullTokensRatio; r > 0 {
		return r
	}
	return 0.8
}

// sglangCells is the bytes one token costs in the full pool and in the
// sliding-window pool.
func sglangCells(in *Input) (full, swa Bytes) {
	d, pools := in.Limits.KVDtype.normalize(), sglangRulesOf(in).swa
	for i := range in.Model.Layers {
		g := &in.Model.Layers[i]
		var cell Bytes
		switch g.Kind {
		case LayerFull, LayerSliding:
			cell = satMul(int64(g.KVHeads), int64(d.RowBytes(g.KeyDim)+d.RowBytes(g.ValueDim)))
		case LayerMLA:
			cell = d.RowBytes(g.LatentDim)
		}
		if g.Kind == LayerSliding && pools {
			swa = satAdd(swa, satMul(int64(g.Count), int64(cell)))
		} else {
			full = satAdd(full, satMul(int64(g.Count), int64(cell)))
		}
	}
	return full, swa
}

// tokenBytes is what one token of the full pool costs with its share of
// the sliding-window pool, in bytes; it is fractional when the ratio is.
func tokenBytes(in *Input) float64 {
	full, swa := sglangCells(in)
	return float64(full) + swaRatio(in)*float64(swa)
}

func (sglang) charge(in *Input, s *shape, l limits, c *charges) {
	m, r := &in.Model, sglangRulesOf(in)
	c.set(keyContext, in.Calibration.Context)
	c.set(keyLibrary, in.Calibration.LibraryReserve)
	c.set(keyWeights, m.Weights.Bytes)
	if (in.Features.Vision || r.towerAlways) && m.Vision != nil {
		c.set(keyVisionTower, m.Vision.Bytes)
	}
	c.set(keyLoadSlack, sglangLoadBeyond(in))
	var others Bytes
	for _, b := range c.amount {
		others = satAdd(others, b)
	}
	per := tokenBytes(in)
	page := int64(max(l.block, 1))
	need := Bytes(math.Ceil(float64(padTo(sglangMinTokens, page)) * per))
	pool := max(budgetOf(in)-others, 0)
	geo := poolGeometry{block: page, full: 1, blockBytes: Bytes(math.Ceil(float64(page) * per))}
	c.setPool(pool, need, geo)
}

// sglangLoadSlack is what SGLang's load takes beyond the checkpoint's
// tensors where sglangLoadHeld does not lay the load out (quantized, MoE,
// MLA and vision checkpoints, architectures whose classes were not read):
// the median of the drop of free memory over the load less the tensors'
// bytes over the eight corpus runs that print it, fitted there before the
// allocator rule (docs/engine-results.md, "Why the misses miss").
const sglangLoadSlack = 148 * MiB

// sglangMinTokens is the smallest pool SGLang starts with. A pool shorter
// than one context_length request starts too: the scheduler caps a request
// at min(context_len − 1, max_total_num_tokens − 1) and asserts only that
// this less 5 is positive (managers/tp_worker.py, TpModelWorker.__init__,
// max_req_len and "Memory pool size is too small", 0.4 and 0.5 copies).
const sglangMinTokens = 7

// sglangTokens is the full pool's tokens in pool bytes, rounded down to the page.
func sglangTokens(in *Input, pool Bytes, page int64) int64 {
	per := tokenBytes(in)
	if per <= 0 {
		return 0
	}
	return int64(float64(pool)/per) / page * page
}

func (sglang) describe(k key, in *Input, c *charges, l limits) (string, string) {
	switch k {
	case keyContext:
		return "CUDA context + driver", c.join("measured: ", in.Calibration.ID)
	case keyLibrary:
		return "library reserve (cuBLAS)", c.join("measured: ", in.Calibration.ID)
	case keyWeights:
		return "model weights", c.weightsDetail(&in.Model)
	case keyVisionTower:
		return "vision tower", "vision tensors"
	case keyLoadSlack:
		if sglangLoadRuled(&in.Model) {
			return "load beyond the tensors", "PyTorch's caching allocator's segments over SGLang's construction order, less the tensors"
		}
		return "load beyond the tensors", "estimated: the median of the corpus's SGLang loads, 148 MiB"
	case keyKV:
		full, swa := sglangCells(in)
		name := c.linef("KV pool (%d tokens)", sglangTokens(in, c.kv.global, int64(max(l.block, 1))))
		if swa > 0 {
			return name, printf.Sprintf("%s/token full + %.2f × %s/token sliding-window", full, swaRatio(in), swa)
		}
		return name, c.linef("%B/token full", int64(full))
	}
	return "", ""
}

func (sglang) report(in *Input, s *shape, p *Plan) {
	l := resolve(&in.Limits)
	page := int64(max(l.block, 1))
	a := poolAnswer(in, p, poolGeometry{block: page, full: 1, blockBytes: Bytes(math.Ceil(float64(page) * tokenBytes(in)))},
		memFractionStatic(in), 0)
	a.Tokens = sglangTokens(in, a.PoolBytes, page)
	a.Blocks = a.Tokens / page
	a.MaxModelLen = trainedCap(in, int(min(a.Tokens, maxSeqLen)))
	a.LongestRequest = min(a.MaxModelLen, l.seqLen)
	a.MaxConcurrency = float64(int64(float64(a.Tokens)/float64(l.seqLen)*100)) / 100
	reqs := l.batch
	if in.Limits.MaxBatch == 0 {
		reqs = int(min(max(a.Tokens*512/int64(l.seqLen), 2048), 4096))
	}
	rest := seedBudget(in) - p.Budget
	r := &EngineReport{Engine: EngineSGLang, Version: sglangProfile.rangeOf(in).ReadAt, Release: in.Serving.Version, Launch: sglangLaunch(in, l), Pool: a,
		Outside: []Item{{Key: "req_to_token", Name: printf.Sprintf("request-to-token table (%d requests)", reqs),
			Tier: TierPooled, Bytes: satMul3(int64(reqs)+1, int64(l.seqLen), 4), Source: SourceExact,
			Detail: "int32 [max_running_requests + 1, context_len], from the memory mem_fraction_static leaves"},
			{Key: "activation_reserve", Name: "left for activations and CUDA graphs", Tier: TierScratch,
				Bytes: rest, Source: SourceFormula, Detail: printf.Sprintf("total × (1 − mem_fraction_static %.3f)", a.Fraction)}}}
	if a.Tokens < int64(l.seqLen) {
		r.Notes = append(r.Notes, printf.Sprintf("the pool holds %d tokens, fewer than one request of context_length %d: SGLang starts and caps each request at %d tokens", a.Tokens, l.seqLen, max(a.Tokens-1, 0)))
	}
	if t := r.Outside[0].Bytes; t > rest/2 {
		r.Notes = append(r.Notes, printf.Sprintf("the request-to-token table (%s) takes more than half of what mem_fraction_static leaves (%s)", t, rest))
	}
	p.Engine = r
}

func sglangLaunch(in *Input, l limits) string {
	var b strings.Builder
	b.WriteString("python -m sglang.launch_server --model-path " + modelArg(in) + " --context-length " + itoa(l.seqLen))
	if in.Limits.MaxBatch > 0 {
		b.WriteString(" --max-running-requests " + itoa(l.batch))
	}
	b.WriteString(" --mem-fraction-static " + strconv.FormatFloat(memFractionStatic(in), 'f', -1, 64))
	if in.Serving.SGLang.ChunkedPrefillOff {
		b.WriteString(" --chunked-prefill-size -1")
	} else if in.Limits.MaxPrefillTokens > 0 {
		b.WriteString(" --chunked-prefill-size " + itoa(in.Limits.MaxPrefillTokens))
	}
	if l.block > 1 {
		b.WriteString(" --page-size " + itoa(l.block))
	}
	if in.Limits.KVDtype.normalize() == KVDtypeFP8 {
		b.WriteString(" --kv-cache-dtype fp8_e4m3")
	}
	o := &in.Serving.SGLang
	if o.CUDAGraphMaxBS > 0 {
		b.WriteString(" --cuda-graph-max-bs " + itoa(o.CUDAGraphMaxBS))
	}
	if o.SWAFullTokensRatio > 0 {
		b.WriteString(" --swa-full-tokens-ratio " + strconv.FormatFloat(o.SWAFullTokensRatio, 'f', -1, 64))
	}
	b.WriteString(convertFlag(in.Model.Weights.Converted))
	return b.String()
}

// modelParallel is tp × pp of the layout a rank's input belongs to, 1 for
// a single GPU: SGLang reserves tp × pp / 8 GiB for it
// (server_args.py::_handle_gpu_memory_settings).
func modelParallel(in *Input) int {
	if r := in.Rank; r != nil {
		return r.Layout.tp() * r.Layout.pp()
	}
	return 1
}
