package planner

import (
	"slices"
	"strings"
)

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

// EngineSeed is the seed's engine, the one gpuagent enforces; the zero
// EngineName means it. Each other engine's name is declared in its own
// file (engine_*.go) and registered in engine_registry.go.
const EngineSeed EngineName = "vramplan"

// Engines lists the engines a plan can follow, the seed's first, in the
// registry's order.
var Engines = engineNames()

func engineNames() []EngineName {
	names := []EngineName{EngineSeed}
	for _, p := range registry {
		names = append(names, p.Name)
	}
	return names
}

// Profile is one engine's entry in the registry (engine_registry.go): what
// the planner, the command-line and log readers, the calculator and the
// CLI know of it. Its rules are the methods of the type the registry names
// beside it, called through the dispatch generated from the registry
// (engine_dispatch.go). Profiles are shared and read-only.
type Profile struct {
	Name EngineName
	// Label is the engine as people write it ("vLLM").
	Label string
	// Aliases are other spellings of Name that --engine takes.
	Aliases []string
	// Versions are the releases the profile's rules cover, oldest first.
	Versions []VersionRange
	// KVDtypes are the KV formats the engine offers, widest first.
	KVDtypes []KVDtype
	// Loads is the form in which the engine loads a model.
	Loads ModelFormat
	// LayerOffload reports whether the profile plans layers left on the
	// CPU (serving.llama_cpp.gpu_layers), TensorSplit whether it plans a
	// layout's per-device shares (parallel.tensor_split).
	LayerOffload, TensorSplit bool

	// knobs are the levers among the planner's knobs that are settings of
	// the engine.
	knobs []Knob
	// pool is set when the KV cache is what the engine's memory fraction
	// leaves, not what the limits ask for (vLLM, SGLang).
	pool bool
	// cells is set when the KV cache is in cells of one token, not blocks
	// (llama.cpp).
	cells bool
}

// ModelFormat is the form in which an engine loads a model.
type ModelFormat string

// Model formats.
const (
	ModelGGUF ModelFormat = "gguf" // a GGUF file
	ModelHF   ModelFormat = "hf"   // a Hugging Face checkpoint: a repository id or a directory
)

// seedProfile is the seed's engine, whose rules are the planner's own
// (charges.go, workspace.go): every knob and KV format.
var seedProfile = Profile{Name: EngineSeed, Label: "vramplan (gpuagent)", KVDtypes: KVDtypes, Loads: ModelGGUF}

// Profiles returns every engine a plan can follow, the seed's first, in
// the registry's order. The profiles are shared: do not modify them.
func Profiles() []*Profile {
	ps := make([]*Profile, 0, len(registry)+1)
	return append(append(ps, &seedProfile), registry[:]...)
}

// Profile returns the profile of e (the zero value is the seed's), or nil
// when no engine of that name is registered.
//
//go:noinline
func (e EngineName) Profile() *Profile {
	if e.normalize() == EngineSeed {
		return &seedProfile
	}
	return profileOf(e)
}

// KVDtypes lists the KV formats engine e offers, widest first; none for
// an engine not registered.
func (e EngineName) KVDtypes() []KVDtype {
	if p := e.Profile(); p != nil {
		return p.KVDtypes
	}
	return nil
}

func (e EngineName) normalize() EngineName {
	if e == "" {
		return EngineSeed
	}
	return e
}

// Valid reports whether e names a known engine (the zero value is valid).
func (e EngineName) Valid() bool { return e.Profile() != nil }

// ParseEngine returns the engine s names: a registered engine's name or
// one of its aliases, in any case; "" is the seed's engine.
func ParseEngine(s string) (EngineName, error) {
	e := EngineName(strings.ToLower(strings.TrimSpace(s)))
	for _, p := range registry {
		if slices.Contains(p.Aliases, string(e)) {
			return p.Name, nil
		}
	}
	if !e.Valid() {
		return "", bad("serving.engine", "unknown engine %q (want one of %v)", s, Engines[1:])
	}
	return e.normalize(), nil
}

// Cells reports whether the engine keeps its KV cache in cells of one
// token (llama.cpp), where a block size has no meaning.
func (p *Profile) Cells() bool { return p.cells }

// Range returns the range of p's releases that holds v, or an error naming
// the ranges p covers.
func (p *Profile) Range(v Version) (VersionRange, error) {
	for _, r := range p.Versions {
		if r.Contains(v) {
			return r, nil
		}
	}
	names := ""
	for i, r := range p.Versions {
		if i > 0 {
			names += "; "
		}
		names += r.String()
	}
	return VersionRange{}, bad(versionField, "%s %s is outside the releases the profile covers (%s)", p.Label, v.String(), names)
}

// EngineReport is what a plan says in one engine's terms: the version its
// rules were read from, the command line that pins the plan, the host
// memory the engine uses beside the device, and the answer people ask of
// that engine.
type EngineReport struct {
	Engine EngineName `json:"engine"`
	// Version names the rules the plan followed: the release they were
	// read at ("vLLM 0.22 (V1 engine)"). Release is the release the input
	// named (serving.version, a log's own), when it named one; PlannedAs
	// says both for a person.
	Version string `json:"version"`
	Release string `json:"release,omitempty"`
	// Launch is the engine's command line that pins this plan, or, when
	// the plan does not fit as asked and the engine can be started so that
	// it does (llama.cpp with fewer layers on the GPU), the command that
	// fits; LaunchAsAsked is then the command as asked, which does not.
	Launch        string `json:"launch"`
	LaunchAsAsked string `json:"launch_as_asked,omitempty"`
	// Host lists host-memory charges; they are not in the plan's total.
	Host []Item `json:"host,omitempty"`
	// LlamaCpp answers for llama.cpp, Pool for vLLM and SGLang.
	LlamaCpp *LlamaCppAnswer `json:"llama_cpp,omitempty"`
	Pool     *PoolAnswer     `json:"pool,omitempty"`
	// Outside lists device memory the engine allocates outside the
	// fraction the plan budgets (SGLang's request table, its activations).
	Outside []Item   `json:"outside_fraction,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Spreads are the ranges that real start-ups of the plan's class
	// support for its estimated figures (residuals.go).
	Spreads []Spread `json:"spreads,omitempty"`
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
	// MaxModelLen is the longest max_model_len whose one request still
	// fits: a setting, which may be past the plan's max_model_len.
	MaxModelLen int `json:"max_model_len_that_fits"`
	// LongestRequest is the longest request the engine serves as planned:
	// MaxModelLen, at most the plan's max_model_len.
	LongestRequest int `json:"longest_request"`
}

// PoolTakesRest reports whether p's KV pool takes what its budget leaves
// once every other charge is made, as vLLM and SGLang size theirs (but not
// vLLM's fixed --kv-cache-memory-bytes): a plan that fits has no headroom
// then, by construction, and the pool's tokens are what it has to spare.
// This is the one rule the plan's text, the "Which GPUs" table and the
// CLI's gpus read.
func (p *Plan) PoolTakesRest() bool {
	return p.Engine != nil && p.Engine.Pool != nil &&
		!(p.Input.Serving.Engine == EngineVLLM && p.Input.Serving.VLLM.KVCacheMemoryBytes > 0)
}

// rules is one engine's allocation rules, each engine's in its own file
// (engine_*.go), a stateless type the registry names. Every method is safe
// for concurrent use.
//
// A plan does not call rules through this interface: a call through an
// interface (or a function value) is one the compiler cannot see into, so
// the input, the shape and the charges a plan passes would move to the
// heap on every plan and on every trial plan of a failure report. The
// dispatch generated from the registry (engine_dispatch.go, by
// internal/enginegen) calls each engine's methods directly, one switch
// per method, with no default engine: a profile not in the registry
// panics, and validation refuses an unknown engine before any plan. The
// interface states the methods the generator forwards and holds every
// registered type to them.
type rules interface {
	// validate reports the first field of in the engine cannot plan.
	validate(in *Input) error
	// normalize writes the engine's defaults for the limits it resolves
	// differently from the seed into in.
	normalize(in *Input)
	// budget is the memory the engine's charges must fit in.
	budget(in *Input) Bytes
	// charge sets the engine's charges of in at limits l into c.
	charge(in *Input, s *shape, l limits, c *charges)
	// describe names charge k and says how it was computed.
	describe(k key, in *Input, c *charges, l limits) (name, detail string)
	// report completes the plan with the engine's answer.
	report(in *Input, s *shape, p *Plan)
	// layoutLaunch adds a layout's sizes to a rank plan's launch command
	// e, in the engine's flags; rin is the rank's input, m the whole model.
	layoutLaunch(e *EngineReport, rin *Input, m *Model)
	// kvDtypeAllowed reports whether the engine can store in's KV cache as
	// d, one of its KVDtypes.
	kvDtypeAllowed(in *Input, d KVDtype) bool
}

// profileFor returns the profile of in, or nil for the seed's engine, whose
// rules are the planner's own (charges.go, workspace.go), and for an engine
// not registered, which validation refuses.
func profileFor(in *Input) *Profile { return profileOf(in.Serving.Engine) }

// unregistered is the panic of a dispatch on a profile not in the
// registry: only the registry's profiles reach one.
func (p *Profile) unregistered() string {
	return "planner: engine profile " + string(p.Name) + " is not in the registry (engine_registry.go)"
}

// isPool reports whether the engine's KV pool is what its memory fraction
// leaves rather than what the limits ask for.
func isPool(in *Input) bool {
	p := profileFor(in)
	return p != nil && p.pool
}

func validateServing(in *Input) error {
	s := &in.Serving
	if !s.Engine.Valid() {
		return bad("serving.engine", "unknown engine %q (want one of %v)", s.Engine, Engines)
	}
	p := profileFor(in)
	if err := validateVersion(in, p); err != nil {
		return err
	}
	if q := s.optionsBesides(p); q != nil {
		if p == nil {
			return bad("serving", "engine options given without their engine")
		}
		return bad("serving", "options of %s given for %s", q.Name, p.Name)
	}
	if p == nil {
		return nil
	}
	if err := seedOnlyFeatures(in); err != nil {
		return err
	}
	if !dtypeIn(in.Limits.KVDtype.normalize(), p.KVDtypes) {
		return bad("limits.kv_dtype", "%s offers no KV dtype %q (want one of %v)", s.Engine, in.Limits.KVDtype, p.KVDtypes)
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
	if p := profileFor(in); p != nil {
		p.normalize(in)
	}
}

// layoutLaunch adds a layout's sizes to a rank plan's launch command, in
// the engine's own flags. rin is the rank's input, m the whole model.
func layoutLaunch(e *EngineReport, rin *Input, m *Model) {
	if p := profileFor(rin); p != nil && e != nil && rin.Rank != nil {
		p.layoutLaunch(e, rin, m)
	}
}

// kvDtypeAllowed reports whether in's engine can store its KV cache as d.
func kvDtypeAllowed(in *Input, d KVDtype) bool {
	if p := profileFor(in); p != nil {
		return p.kvDtypeAllowed(in, d)
	}
	return true
}

// engineReport completes p with its profile's answer.
func engineReport(in *Input, s *shape, p *Plan) {
	pr := profileFor(in)
	if pr == nil {
		return
	}
	pr.report(in, s, p)
	p.Engine.Spreads = spreads(in, pr, p)
	if a := p.Engine.Pool; a != nil && p.Capacity != nil { // the requests of max length the pool holds as started
		p.Capacity.MaxSeqsAtMaxLen = int(a.MaxConcurrency)
	}
}
