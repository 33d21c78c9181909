package planner

// This file is the engine seam. A plan follows one engine's allocation
// rules: the seed's engine (the default, the one gpuagent enforces), or
// llama.cpp, vLLM or SGLang, each in its own file (engine_*.go) and each
// pinned to the engine version its rules were read from. A profile decides
// the budget the engine sees, the charges it makes, what it says about them,
// and the answer people ask of that engine; the arithmetic core, the levers
// and the solvers are shared, so every profile is planned, searched and
// tested the same way. Profiles compute one device's plan; a per-rank plan
// for tensor or pipeline parallelism is a later profile input, not a fork of
// this seam.

// EngineName names the engine whose allocation rules a plan follows.
type EngineName string

// Engines. The zero value means EngineSeed.
const (
	EngineSeed     EngineName = "vramplan" // the seed's engine, enforced by gpuagent
	EngineLlamaCpp EngineName = "llama.cpp"
	EngineVLLM     EngineName = "vllm"
	EngineSGLang   EngineName = "sglang"
)

// Engines lists the engines a plan can follow.
var Engines = []EngineName{EngineSeed, EngineLlamaCpp, EngineVLLM, EngineSGLang}

// KVDtypes lists the KV formats engine e offers, widest first.
func (e EngineName) KVDtypes() []KVDtype {
	in := Input{Serving: Serving{Engine: e}}
	if p := profileFor(&in); p != nil {
		return p.kvDtypes()
	}
	return KVDtypes
}

func (e EngineName) normalize() EngineName {
	if e == "" {
		return EngineSeed
	}
	return e
}

// Valid reports whether e names a known engine (the zero value is valid).
func (e EngineName) Valid() bool {
	switch e.normalize() {
	case EngineSeed, EngineLlamaCpp, EngineVLLM, EngineSGLang:
		return true
	}
	return false
}

// Serving selects the engine profile of a plan and carries the options of
// that engine that change memory and have no field in Limits. Only the
// selected engine's options are read; the others must be zero.
type Serving struct {
	Engine   EngineName      `json:"engine,omitempty"`
	LlamaCpp LlamaCppOptions `json:"llama_cpp,omitzero"`
	VLLM     VLLMOptions     `json:"vllm,omitzero"`
	SGLang   SGLangOptions   `json:"sglang,omitzero"`
}

// EngineReport is what a plan says in one engine's terms: the version its
// rules were read from, the command line that pins the plan, the host
// memory the engine uses beside the device, and the answer people ask of
// that engine.
type EngineReport struct {
	Engine  EngineName `json:"engine"`
	Version string     `json:"version"`
	// Launch is the engine's command line that pins this plan.
	Launch string `json:"launch"`
	// Host lists host-memory charges; they are not in the plan's total.
	Host []Item `json:"host,omitempty"`
	// LlamaCpp answers for llama.cpp, Pool for vLLM and SGLang.
	LlamaCpp *LlamaCppAnswer `json:"llama_cpp,omitempty"`
	Pool     *PoolAnswer     `json:"pool,omitempty"`
	// Outside lists device memory the engine allocates outside the
	// fraction the plan budgets (SGLang's request table, its activations).
	Outside []Item   `json:"outside_fraction,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// PoolAnswer is what an engine whose KV pool takes what its memory fraction
// leaves (vLLM, SGLang) allocates, and what that pool holds.
type PoolAnswer struct {
	// Fraction is the share of the device's total memory the engine takes
	// (gpu_memory_utilization, mem_fraction_static).
	Fraction float64 `json:"fraction"`
	// PoolBytes is the KV pool the engine allocates; 0 when nothing is left.
	PoolBytes   Bytes `json:"pool_bytes"`
	Blocks      int64 `json:"blocks"`
	BlockTokens int   `json:"block_tokens"`
	Tokens      int64 `json:"tokens"` // KV tokens of full attention the pool holds
	// MaxConcurrency is how many requests of max_model_len tokens the pool
	// holds at once (vLLM's "Maximum concurrency" line).
	MaxConcurrency float64 `json:"max_concurrency"`
	// MaxModelLen is the longest max_model_len whose one request still fits.
	MaxModelLen int `json:"max_model_len_that_fits"`
}

// rules is one engine's allocation rules, each engine's in its own file
// (engine_*.go). Implementations are stateless values; every method is safe
// for concurrent use.
type rules interface {
	// validate reports the first field of in the engine cannot plan.
	validate(in *Input) error
	// budget is the memory the engine's charges must fit in.
	budget(in *Input) Bytes
	// charge sets the engine's charges of in at limits l into c.
	charge(in *Input, s *shape, l limits, c *charges)
	// describe names charge k and says how it was computed.
	describe(k key, in *Input, c *charges, l limits) (name, detail string)
	// report completes the plan with the engine's answer.
	report(in *Input, s *shape, p *Plan)
	// kvDtypes lists the KV formats the engine offers, widest first.
	kvDtypes() []KVDtype
}

// Every engine implements the whole of rules.
var _ = [...]rules{llamaCpp{}, vllm{}, sglang{}}

// profile is the rules of one engine other than the seed's. It calls them
// through a switch on the engine rather than through the rules interface:
// the compiler then sees each callee, so the input, the shape and the
// charges a plan passes stay on the caller's stack, where a call through
// an interface would move all three to the heap on every plan (and on
// every trial plan of a failure report). A new engine adds a case to each
// method below.
type profile struct{ engine EngineName }

var (
	llamaCppProfile = &profile{EngineLlamaCpp}
	vllmProfile     = &profile{EngineVLLM}
	sglangProfile   = &profile{EngineSGLang}
)

// profileFor returns the profile of in, or nil for the seed's engine, whose
// rules are the planner's own (charges.go, workspace.go).
func profileFor(in *Input) *profile {
	switch in.Serving.Engine {
	case EngineLlamaCpp:
		return llamaCppProfile
	case EngineVLLM:
		return vllmProfile
	case EngineSGLang:
		return sglangProfile
	}
	return nil
}

func (p *profile) validate(in *Input) error {
	switch p.engine {
	case EngineLlamaCpp:
		return llamaCpp{}.validate(in)
	case EngineVLLM:
		return vllm{}.validate(in)
	}
	return sglang{}.validate(in)
}

func (p *profile) budget(in *Input) Bytes {
	switch p.engine {
	case EngineLlamaCpp:
		return llamaCpp{}.budget(in)
	case EngineVLLM:
		return vllm{}.budget(in)
	}
	return sglang{}.budget(in)
}

func (p *profile) charge(in *Input, s *shape, l limits, c *charges) {
	switch p.engine {
	case EngineLlamaCpp:
		llamaCpp{}.charge(in, s, l, c)
	case EngineVLLM:
		vllm{}.charge(in, s, l, c)
	default:
		sglang{}.charge(in, s, l, c)
	}
}

func (p *profile) describe(k key, in *Input, c *charges, l limits) (name, detail string) {
	switch p.engine {
	case EngineLlamaCpp:
		return llamaCpp{}.describe(k, in, c, l)
	case EngineVLLM:
		return vllm{}.describe(k, in, c, l)
	}
	return sglang{}.describe(k, in, c, l)
}

func (p *profile) report(in *Input, s *shape, pl *Plan) {
	switch p.engine {
	case EngineLlamaCpp:
		llamaCpp{}.report(in, s, pl)
	case EngineVLLM:
		vllm{}.report(in, s, pl)
	default:
		sglang{}.report(in, s, pl)
	}
}

func (p *profile) kvDtypes() []KVDtype {
	switch p.engine {
	case EngineLlamaCpp:
		return llamaCpp{}.kvDtypes()
	case EngineVLLM:
		return vllm{}.kvDtypes()
	}
	return sglang{}.kvDtypes()
}

// isPool reports whether the engine's KV pool is what its memory fraction
// leaves rather than what the limits ask for.
func isPool(in *Input) bool {
	e := in.Serving.Engine
	return e == EngineVLLM || e == EngineSGLang
}

func validateServing(in *Input) error {
	s := &in.Serving
	if !s.Engine.Valid() {
		return bad("serving.engine", "unknown engine %q (want one of %v)", s.Engine, Engines)
	}
	p := profileFor(in)
	if p == nil {
		if s.LlamaCpp != (LlamaCppOptions{}) || s.VLLM != (VLLMOptions{}) || s.SGLang != (SGLangOptions{}) {
			return bad("serving", "engine options given without their engine")
		}
		return nil
	}
	if err := seedOnlyFeatures(in); err != nil {
		return err
	}
	if !dtypeIn(in.Limits.KVDtype.normalize(), p.kvDtypes()) {
		return bad("limits.kv_dtype", "%s offers no KV dtype %q (want one of %v)", s.Engine, in.Limits.KVDtype, p.kvDtypes())
	}
	return p.validate(in)
}

// seedOnlyFeatures refuses the seed's engine features under another engine,
// which has none of them: a plan must not charge what the engine lacks.
func seedOnlyFeatures(in *Input) error {
	f := &in.Features
	for _, x := range []struct {
		field string
		on    bool
	}{{"weight_cache", f.WeightCache.normalize() != WeightCacheNone}, {"residual_ring_tokens", f.ResidualRing > 0},
		{"recurrent_snapshots", f.RecurrentSnapshots > 0}, {"sidecar_agent", f.SidecarAgent},
		{"spec_decode_k", f.SpecDecodeK > 0}, {"eager_module_loading", f.EagerModuleLoading}} {
		if x.on {
			return bad("features."+x.field, "is a feature of the seed's engine, not of %s", in.Serving.Engine)
		}
	}
	if in.Measured != (Measured{}) {
		return bad("measured", "is a gpuagent report of the seed's engine, not of %s", in.Serving.Engine)
	}
	return nil
}

func dtypeIn(d KVDtype, ds []KVDtype) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// normalizeEngine writes the engine's defaults for the limits it resolves
// differently from the seed into in, so that the plan document states them
// and a re-plan of it reproduces it.
func normalizeEngine(in *Input) {
	l := &in.Limits
	switch in.Serving.Engine {
	case EngineLlamaCpp:
		if l.MaxBatch == 0 { // llama-server's -np auto: 4 slots, one unified cache
			l.MaxBatch, in.Serving.LlamaCpp.Unified = 4, true
		}
		defaultTensorSplit(in)
	case EngineVLLM:
		vllmDefaults(in)
	case EngineSGLang:
		l.BlockTokens = orDefaultInt(l.BlockTokens, 1)
	}
}

// engineReport completes p with its profile's answer.
func engineReport(in *Input, s *shape, p *Plan) {
	pr := profileFor(in)
	if pr == nil {
		return
	}
	pr.report(in, s, p)
	if a := p.Engine.Pool; a != nil && p.Capacity != nil {
		p.Capacity.MaxSeqsAtMaxLen, p.Capacity.MaxLenAtBatch = int(a.MaxConcurrency), a.MaxModelLen
	}
}
