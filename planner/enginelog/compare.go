package enginelog

import (
	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// Input returns the input that plans the configuration the log states,
// for model m on calibration cal: llama.cpp's context settings, or the
// request length of vLLM's concurrency line.
func (l *Log) Input(m planner.Model, cal planner.Calibration) (planner.Input, error) {
	in := planner.Input{Model: m, Calibration: cal, Serving: planner.Serving{Engine: l.Engine, Version: l.release()}}
	input := inputOf(l.Engine)
	if input == nil {
		return in, printf.Errorf("no log reader for engine %q", l.Engine)
	}
	return in, input(l, &in)
}

// release returns the release l states when its engine's profile has
// rules for it, so that the log is planned by its own release's rules;
// planner.VLLMV0Release for a V0 engine's log that states none; for a V1
// log that states none, the newest of the releases its lines allow
// (Releases); "" (the profile's newest) otherwise. logcheck's assumptions
// say which.
func (l *Log) release() string {
	p := l.Engine.Profile()
	switch {
	case p == nil:
		return ""
	case l.Version == "" && l.V0():
		return planner.VLLMV0Release
	case l.Version == "":
		if rs := l.Releases(); len(rs) > 0 {
			return rs[0]
		}
		return ""
	}
	v, err := planner.ParseVersion(l.Version)
	if err != nil {
		return ""
	}
	if _, err := p.Range(v); err != nil {
		return ""
	}
	return l.Version
}

// V0 reports whether l is a log of vLLM's V0 engine (Settings.V0).
func (l *Log) V0() bool { return l.Engine == planner.EngineVLLM && l.Settings != nil && l.Settings.V0 }

// poolInput is a pool engine's configuration: the request length the log
// states (max_model_len or context_length, else the length of vLLM's
// concurrency line, else the model's trained context) and its parallel
// sizes (stated, else as many tensor-parallel ranks as printed lines).
func poolInput(l *Log, in *planner.Input) error {
	st := l.Settings
	if st == nil {
		st = &Settings{}
	}
	switch {
	case st.MaxLen > 0:
		in.Limits.MaxSeqLen = st.MaxLen
	case l.Pool != nil && l.Pool.ConcurrencyLen > 0:
		in.Limits.MaxSeqLen = l.Pool.ConcurrencyLen
	default:
		if in.Limits.MaxSeqLen = in.Model.MaxContext; in.Limits.MaxSeqLen == 0 {
			return printf.Errorf("the log states no request length; give one")
		}
	}
	in.Parallel.Tensor, in.Parallel.Pipeline = st.TensorParallel, st.PipelineParallel
	if st.TensorParallel == 0 && st.PipelineParallel == 0 && st.Ranks > 1 {
		in.Parallel.Tensor = st.Ranks
	}
	return nil
}

// RankZero returns the plan of rank 0 of p, whose figures a multi-GPU log
// prints: p itself when it is one GPU's.
func RankZero(p *planner.Plan) *planner.Plan {
	if p.Layout != nil {
		if rp, ok := p.RankPlanOf(0); ok {
			return &rp
		}
	}
	return p
}

// Row is one charge, planned against what the engine reported.
type Row struct {
	Key      string        `json:"key"`
	Name     string        `json:"name"`
	Plan     planner.Bytes `json:"plan_bytes"`
	Log      planner.Bytes `json:"log_bytes"`
	Residual planner.Bytes `json:"residual_bytes"` // plan − log
	// Within reports whether the residual is inside the log's print resolution.
	Within bool `json:"within_resolution"`
}

// Compare sets the figures of l against plan p, charge by charge. The
// figures of a multi-GPU log are rank 0's, so they are set against the
// plan of rank 0.
func Compare(l *Log, p *planner.Plan) []Row {
	p = RankZero(p)
	rows := make([]Row, 0, len(l.Figures))
	for _, f := range l.Figures {
		b := Planned(p, f.Key)
		if f.Key == "kv" && p.Engine != nil && p.Engine.Pool != nil {
			b = p.Engine.Pool.PoolBytes
		}
		d := b - f.Bytes
		rows = append(rows, Row{Key: f.Key, Name: f.Name, Plan: b, Log: f.Bytes, Residual: d,
			Within: d <= f.Resolution && -d <= f.Resolution})
	}
	return rows
}

// Planned returns the bytes plan p charges to the figure key: its items of
// that key, the sliding-window KV with "kv", and the items a figure of
// several charges holds (plannedWith).
func Planned(p *planner.Plan, key string) planner.Bytes {
	var b planner.Bytes
	for _, it := range p.Items {
		if it.Key == key || key == "kv" && it.Key == "kv_swa" || plannedWith(key, it.Key) {
			b += it.Bytes
		}
	}
	return b
}

// plannedWith reports whether the plan's item of key item is in a vLLM
// start report's figure of key figure (vllmSummary): its consumed memory,
// the weights and what sits outside torch beside them, the communicators'
// buffers and Model Runner V2's sampler state among it; its peak
// activation, the profile's peak and the CUDA-graph estimate a release
// from 0.21 takes out of the budget (the plan's cuda_graphs item, which
// an earlier release's plan has not).
func plannedWith(figure, item string) bool {
	switch figure {
	case "consumed":
		return item == "weights" || item == "vision_tower" || item == "non_torch" || item == "communication" || item == "sampler_state"
	case "peak_in_budget":
		return item == "activation_peak" || item == "cuda_graphs"
	}
	return false
}

// Summed reports whether the figure of key holds charges that other
// figures of the same log state too (vllmSummary's consumed memory and
// peak activation), so that a sum of a log's figures leaves it out.
func Summed(key string) bool { return key == "consumed" || key == "peak_in_budget" }

// PoolRow is the KV pool's size in tokens (vLLM V1, SGLang) or blocks (vLLM
// V0), planned against what the engine reported.
type PoolRow struct {
	Unit string `json:"unit"` // "tokens" or "blocks"
	Plan int64  `json:"plan"`
	Log  int64  `json:"log"`
	// Residual is (plan − log) / log, a share.
	Residual float64 `json:"residual"`
	// Stages says which pipeline stage binds in the plan and in the log,
	// for a plan of more than one stage.
	Stages *PoolStages `json:"stages,omitempty"`
}

// ComparePool sets the pool of l against the pool of plan p, or returns
// nil when either states none. The engine sizes every rank's cache to the
// fewest tokens a stage holds, so the pool of a plan of pipeline stages is
// its binding stage's (PoolRow.Stages); that of one stage rank 0's.
func ComparePool(l *Log, p *planner.Plan) *PoolRow {
	ps, bind := poolStages(l, p)
	if bind == nil {
		bind = RankZero(p)
	}
	p = bind
	if l.Pool == nil || p.Engine == nil || p.Engine.Pool == nil {
		return nil
	}
	a := p.Engine.Pool
	r := PoolRow{Unit: "tokens", Plan: a.Tokens, Log: l.Pool.Tokens}
	if r.Log == 0 {
		r = PoolRow{Unit: "blocks", Plan: a.Blocks, Log: l.Pool.Blocks}
	}
	if r.Log <= 0 {
		return nil
	}
	r.Residual, r.Stages = float64(r.Plan-r.Log)/float64(r.Log), ps
	return &r
}
