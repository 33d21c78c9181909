package enginelog

import (
	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// Input returns the input that plans the configuration the log states,
// for model m on calibration cal: llama.cpp's context settings, or the
// request length of vLLM's concurrency line.
func (l *Log) Input(m planner.Model, cal planner.Calibration) (planner.Input, error) {
	in := planner.Input{Model: m, Calibration: cal, Serving: planner.Serving{Engine: l.Engine}}
	switch {
	case l.LlamaCpp != nil:
		s := l.LlamaCpp
		if s.NCtx == 0 || s.NSeqMax == 0 {
			return in, printf.Errorf("the log states no context (llama_context: n_ctx, n_seq_max)")
		}
		in.Limits = planner.Limits{MaxBatch: s.NSeqMax, MaxSeqLen: max(s.NCtx/s.NSeqMax, 1), MaxPrefillTokens: s.NUbatch,
			KVDtype: planner.KVDtype(s.TypeK)}
		o := &in.Serving.LlamaCpp
		o.Unified, o.SWAFull = s.Unified, s.SWAFull
		if s.TypeV != "" && s.TypeV != s.TypeK {
			o.VDtype = planner.KVDtype(s.TypeV)
		}
		if !s.FlashAttn {
			o.FlashAttn = planner.FlashAttnOff
		}
		if s.Layers > 0 && s.GPULayers < s.Layers {
			o.GPULayers = s.GPULayers
		}
	case l.Pool != nil && l.Pool.ConcurrencyLen > 0:
		in.Limits.MaxSeqLen = l.Pool.ConcurrencyLen
		if u := l.Pool.Utilization; u > 0 && u <= 1 && l.Engine == planner.EngineVLLM {
			in.Serving.VLLM.GPUMemoryUtilization = u
		}
	default:
		if in.Limits.MaxSeqLen = m.MaxContext; in.Limits.MaxSeqLen == 0 {
			return in, printf.Errorf("the log states no request length; give one")
		}
	}
	return in, nil
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

// Compare sets the figures of l against plan p, charge by charge.
func Compare(l *Log, p *planner.Plan) []Row {
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
// that key, the sliding-window KV with "kv".
func Planned(p *planner.Plan, key string) planner.Bytes {
	var b planner.Bytes
	for _, it := range p.Items {
		if it.Key == key || key == "kv" && it.Key == "kv_swa" {
			b += it.Bytes
		}
	}
	return b
}
