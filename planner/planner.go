// Package planner computes a tiered GPU memory plan for serving a language
// model, or a failure report that says what to change.
//
// The planner is the pure function of the seed's A4.2: a model shape,
// features, concurrency limits, a budget and a measured calibration in; a
// plan whose line items name every charge out. It never asks a device
// anything, reads no files, keeps no clock and draws no random numbers, so
// the same input yields a byte-identical plan on any machine, a browser
// included. It imports the standard library and two of the module's
// helpers, internal/printf and internal/jsonlite, which stand in for fmt and
// encoding/json in the WebAssembly module.
//
// Allocation follows the seed's tier order: the driver's charges (CUDA
// context, library reserve), engine-persistent arenas (T2), model-resident
// weights and caches (T1), the fixed-block pools (T3) with the KV pool
// last-but-scratch, and the forward-scratch high-water (T4).
package planner

import "errors"

// PlanSchema identifies version 1 of the plan document.
const PlanSchema = "vramplan.plan/v1"

// Input is everything a plan is made from. Its zero-valued optional fields
// take the documented defaults, and a plan document carries its Input so
// that the document alone reproduces the plan.
type Input struct {
	Model       Model       `json:"model"`
	Limits      Limits      `json:"limits"`
	Features    Features    `json:"features,omitzero"`
	Budget      Bytes       `json:"budget_bytes,omitempty"` // 0 means the calibration's device total
	Calibration Calibration `json:"calibration"`
	Engine      Engine      `json:"engine,omitzero"`
	Measured    Measured    `json:"measured,omitzero"`
	// Serving selects the engine whose allocation rules the plan follows;
	// the zero value is the seed's engine.
	Serving Serving `json:"serving,omitzero"`
	// Parallel is the multi-GPU layout; the zero value is one GPU (layout.go).
	Parallel Parallel `json:"parallel,omitzero"`
	// Rank is set in the input of one rank of a layout plan.
	Rank *Rank `json:"rank,omitempty"`
}

// Limits are the concurrency limits a server advertises (seed D7).
type Limits struct {
	// MaxBatch is the number of sequences served at once. Zero lets the KV
	// pool take the residual: the plan admits as many sequences of
	// MaxSeqLen tokens as fit, and fails if not one does (seed D8).
	MaxBatch int `json:"max_batch"`
	// MaxSeqLen is the longest sequence, prompt and output, in tokens.
	MaxSeqLen int `json:"max_seq_len"`
	// MaxPrefillTokens is the prefill chunk, in tokens; 0 means 512.
	MaxPrefillTokens int `json:"max_prefill_tokens,omitempty"`
	// KVDtype is the KV-cache format; the zero value means f16.
	KVDtype KVDtype `json:"kv_dtype,omitempty"`
	// BlockTokens is the number of tokens per KV block; 0 means 16.
	BlockTokens int `json:"block_tokens,omitempty"`
}

// Features are the optional parts of an engine that cost memory.
type Features struct {
	WeightCache WeightCache `json:"weight_cache,omitempty"`
	// Vision charges the model's vision tower (seed A5.4: declared and resident).
	Vision bool `json:"vision,omitempty"`
	// SpecDecodeK is the largest number of draft tokens speculative decoding
	// may propose; its staging is planned for this maximum (seed A5.5).
	SpecDecodeK int `json:"spec_decode_k,omitempty"`
	// CUDAGraphs charges the bounded pool of captured graphs (seed A5.2).
	CUDAGraphs bool `json:"cuda_graphs,omitempty"`
	// ResidualRing is the FP16 residual ring's length in tokens, 0 for none.
	ResidualRing int `json:"residual_ring_tokens,omitempty"`
	// RecurrentSnapshots is the number of recurrent-state prefix snapshots.
	RecurrentSnapshots int `json:"recurrent_snapshots,omitempty"`
	// EagerModuleLoading selects the calibration's CUDA_MODULE_LOADING=EAGER figures.
	EagerModuleLoading bool `json:"eager_module_loading,omitempty"`
	// SidecarAgent charges a second CUDA context for an agent process that
	// runs beside the engine on the same device.
	SidecarAgent bool `json:"sidecar_agent,omitempty"`
}

// Engine holds the engine's fixed sizes. Zero fields take the seed's values.
type Engine struct {
	CublasWorkspace Bytes `json:"cublaslt_workspace_bytes,omitempty"` // 64 MiB (seed A5.3)
	BenchScratch    Bytes `json:"algo_bench_scratch_bytes,omitempty"` // 32 MiB (seed A1.7)
	AttentionScores Bytes `json:"attention_scores_bytes,omitempty"`   // 384 MiB (seed A1.7)
	GroupedGEMM     Bytes `json:"grouped_gemm_bytes,omitempty"`       // 1 MiB, MoE only (seed B73)
	DecodeGraphs    int   `json:"decode_graphs,omitempty"`            // 64 (seed A5.2)
	CommitChunk     Bytes `json:"kv_commit_chunk_bytes,omitempty"`    // 64 MiB (notes/cuda.md)
}

// Measured holds high-water marks a previous run reported (gpuagent
// report). When set they replace the formulas for their tier.
type Measured struct {
	EnginePersistent Bytes `json:"engine_persistent_bytes,omitempty"`
	Scratch          Bytes `json:"scratch_bytes,omitempty"`
}

// Plan is a tiered memory plan, or, when Fits is false, the arithmetic of
// why the input does not fit and what would make it fit.
type Plan struct {
	Schema      string       `json:"schema"`
	Fits        bool         `json:"fits"`
	Budget      Bytes        `json:"budget_bytes"`
	Total       Bytes        `json:"total_bytes"`
	Headroom    Bytes        `json:"headroom_bytes"` // Budget − Total; negative when over
	Weights     Bytes        `json:"weights_bytes"`  // the weights alone, no caches
	Items       []Item       `json:"items"`
	Tiers       []TierTotal  `json:"tiers"`
	KV          KVPlan       `json:"kv"`
	Capacity    *Capacity    `json:"capacity,omitempty"`
	Failure     *Failure     `json:"failure,omitempty"`
	Levers      []Lever      `json:"levers"`
	Combination *Combination `json:"combination,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
	// Engine states the plan in its engine's terms; nil for the seed's engine.
	Engine *EngineReport `json:"engine,omitempty"`
	Input  Input         `json:"input"`
	// Layout holds the per-rank plans of a multi-GPU input; the figures
	// above are then the sums over its GPUs.
	Layout *Layout `json:"layout,omitempty"`
}

// Item is one line of a plan: a named charge in a tier.
type Item struct {
	Key    string `json:"key"`  // stable identifier, e.g. "kv", "weights"
	Name   string `json:"name"` // what a person reads
	Tier   Tier   `json:"tier"`
	Bytes  Bytes  `json:"bytes"`
	Source Source `json:"source"`
	Detail string `json:"detail,omitempty"` // the formula or the measurement
}

// TierTotal is the sum of a tier's items.
type TierTotal struct {
	Tier  Tier  `json:"tier"`
	Bytes Bytes `json:"bytes"`
}

// KVPlan sizes the attention KV pools: the global pool and, for models with
// sliding-window layers, the SWA pool in its own id space (seed B2).
type KVPlan struct {
	Dtype         KVDtype  `json:"dtype"`
	Bytes         Bytes    `json:"bytes"` // global and SWA pools together
	Blocks        int64    `json:"blocks"`
	BlockTokens   int      `json:"block_tokens"`
	BlockBytes    Bytes    `json:"block_bytes"`
	BytesPerToken Bytes    `json:"bytes_per_token"`
	SWA           *SWAPlan `json:"swa,omitempty"`
	// Reserve is the virtual address range a VMM-backed pool reserves: both
	// pools rounded up to the device's granularity. It is what the plan charges.
	Reserve       Bytes `json:"reserve_bytes"`
	CommitChunk   Bytes `json:"commit_chunk_bytes"`
	InitialCommit Bytes `json:"initial_commit_bytes"`
	// Shrink is when the pool gives committed chunks back while serving.
	Shrink ShrinkPlan `json:"shrink"`
}

// SWAPlan sizes the sliding-window pool.
type SWAPlan struct {
	Blocks        int64 `json:"blocks"`
	BlocksPerSeq  int64 `json:"blocks_per_seq"`
	Window        int   `json:"window"` // the largest window, in tokens
	Bytes         Bytes `json:"bytes"`
	BytesPerToken Bytes `json:"bytes_per_token"`
}

// Capacity is what the KV pool plus the plan's headroom could hold.
type Capacity struct {
	MaxSeqsAtMaxLen int `json:"max_seqs_at_max_len"` // concurrent sequences of MaxSeqLen tokens
	MaxLenAtBatch   int `json:"max_len_at_batch"`    // longest sequence at MaxBatch
}

// FailureReason classifies why a plan failed.
type FailureReason string

// Failure reasons.
const (
	FailureOverBudget     FailureReason = "over_budget"
	FailureAdmissionFloor FailureReason = "admission_floor"
	// FailureWeights is a plan whose weights, with what the driver charges
	// before them, exceed the budget on their own: no limit or feature can
	// fit it, only a larger budget, smaller weights or more GPUs.
	FailureWeights FailureReason = "weights_exceed_budget"
)

// Failure is the typed error of a plan that does not fit (seed A4.3, D8).
type Failure struct {
	Reason  FailureReason `json:"reason"`
	Message string        `json:"message"`
	Budget  Bytes         `json:"budget_bytes"`
	Total   Bytes         `json:"total_bytes"`
	OverBy  Bytes         `json:"over_by_bytes"`
}

func (f *Failure) Error() string { return f.Message }

// InputError reports an input field that cannot be planned.
type InputError struct {
	Field string // JSON path of the field, e.g. "limits.max_seq_len"
	Msg   string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

// PlanMemory plans in. It returns the plan and a nil error when it fits. When
// it does not, it returns the plan with Fits false and its Failure, and the
// same *Failure as the error. An input that cannot be planned yields an
// *InputError and a zero Plan. PlanMemory computes no levers and no
// capacity; Report does.
func PlanMemory(in Input) (p Plan, err error) {
	if err := Validate(&in); err != nil {
		return Plan{}, err
	}
	normalizeEngine(&in)
	planAny(&in, &p) // into the result: no copy of the Plan on the way out
	if p.Failure != nil {
		err = p.Failure
	}
	return p, err
}

// Report plans in and completes the plan with what a person reads: the
// capacity of the KV pool and headroom and, when the plan does not fit, the
// levers that would make it fit. It is ReportWith with zero Options.
func Report(in Input) (Plan, error) { return ReportWith(in, Options{}) }

// Options tune ReportWith. The zero value is the default.
type Options struct {
	// Stop, when not nil, is asked before each trial plan of a failure
	// report's lever search (a few thousand at most) and before each
	// layout its layout levers and fewest-GPUs search try; once it reports
	// true, the search ends and ReportWith returns ErrStopped. A server passes
	// one that reports whether the request was cancelled. It keeps the
	// planner free of clocks and contexts: the caller decides what stops it.
	Stop func() bool `json:"-"`
}

// ErrStopped is the error ReportWith returns when its Options.Stop
// reported true before the report was complete.
var ErrStopped = errors.New("planner: report stopped before it was complete")

// ReportWith is Report with options.
func ReportWith(in Input, o Options) (p Plan, err error) {
	if err := Validate(&in); err != nil {
		return Plan{}, err
	}
	normalizeEngine(&in)
	st := &stopper{f: o.Stop}
	if reportValid(&in, depthReport, st, &p); st.stopped {
		return Plan{}, ErrStopped
	}
	if p.Failure != nil {
		err = p.Failure
	}
	return p, err
}

// A depth is how much of a report a plan is made with.
type depth uint8

const (
	// depthPlan is the plan alone (PlanMemory).
	depthPlan depth = iota
	// depthRow adds what a row of GPUs says: the sequences of max_seq_len
	// that fit, and the engine's report with its launch command.
	depthRow
	// depthReport adds the longest sequence at the batch and, for a plan
	// that does not fit, the levers (Report).
	depthReport
)

// reportValid is ReportWith's report of a validated, normalized input to
// depth d (depthRow or depthReport), made into p, the zero Plan; once st
// reports true, p is to be discarded.
func reportValid(in *Input, d depth, st *stopper, p *Plan) {
	if in.Parallel.multi() {
		planLayout(in, d, st, p)
		return
	}
	planValid(in, p)
	c := capacity(in, d == depthReport)
	p.Capacity = &c
	if !p.Fits && d == depthReport {
		p.Levers, p.Combination = levers(newTrials(in, st.stop))
		if p.Levers = withLayoutLevers(in, p.Levers, st); st.stopped {
			return
		}
		noteGPUs(p)
	}
	sh := newShape(&in.Model, in.Limits.KVDtype)
	engineReport(in, &sh, p)
}
