package observation

import (
	"fmt"
	"slices"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// FromLog returns the observation of a parsed log: l's engine, settings
// and figures, with the model shape m, the GPU, the engine's version and
// the day. The log's model path is not carried. Check the result (Format,
// then Check) before sending it.
func FromLog(l *enginelog.Log, m planner.Model, gpu GPU, version, day, catalog string) Observation {
	o := Observation{Schema: Schema, Engine: l.Engine, EngineVersion: version, Day: day, GPU: gpu,
		Model: Model{Catalog: catalog, Shape: m}, Figures: []Figure{}}
	if s := l.LlamaCpp; s != nil {
		o.LlamaCpp = &LlamaCpp{NCtx: s.NCtx, NSeqMax: s.NSeqMax, NUbatch: s.NUbatch, FlashAttn: s.FlashAttn,
			Unified: s.Unified, SWAFull: s.SWAFull, TypeK: s.TypeK, TypeV: s.TypeV, GPULayers: s.GPULayers, Layers: s.Layers}
	}
	if p := l.Pool; p != nil {
		o.Pool = &Pool{Tokens: p.Tokens, MaxConcurrency: p.MaxConcurrency, ConcurrencyLen: p.ConcurrencyLen, Utilization: p.Utilization}
	}
	if o.Settings = settingsOf(l.Settings); o.Settings != nil {
		o.Schema = SchemaSettings
	}
	for _, f := range l.Figures {
		o.Figures = append(o.Figures, Figure{Key: f.Key, Bytes: int64(f.Bytes), Resolution: int64(f.Resolution)})
	}
	o.Model.Shape.ID, o.Model.Shape.Source = "", ""
	return o
}

// settingsOf returns what of a log's settings its plan reads, or nil when
// that is nothing: the ranks its lines name are the tensor-parallel size
// when it states no parallel size, as Log.Input plans them.
func settingsOf(st *enginelog.Settings) *Settings {
	if st == nil {
		return nil
	}
	s := st.Launch
	if s.TensorParallel == 0 && s.PipelineParallel == 0 && st.Ranks > 1 {
		s.TensorParallel = st.Ranks
	}
	if s == (Settings{}) {
		return nil
	}
	return &s
}

// Log returns o as planner/enginelog reads a log, so that its
// configuration is planned (Log.Input) as `vramplan check` planned it —
// under its release, its parallel sizes and its other settings — and
// compared (Compare). device_used is not a log figure and is left out.
//
// This and the other functions of an Observation are functions rather
// than methods: the reader's WebAssembly links text/template, which keeps
// every exported method of a type it may reflect on, and Plan would bring
// the whole planner into a module that only checks documents.
func Log(o *Observation) enginelog.Log {
	l := enginelog.Log{Engine: o.Engine, Version: o.EngineVersion}
	if s := o.Settings; s != nil {
		l.Settings = &enginelog.Settings{Launch: *s}
	}
	if s := o.LlamaCpp; s != nil {
		l.LlamaCpp = &enginelog.LlamaCppSettings{NCtx: s.NCtx, NSeqMax: s.NSeqMax, NUbatch: s.NUbatch, FlashAttn: s.FlashAttn,
			Unified: s.Unified, SWAFull: s.SWAFull, TypeK: s.TypeK, TypeV: s.TypeV, GPULayers: s.GPULayers, Layers: s.Layers}
	}
	if p := o.Pool; p != nil {
		l.Pool = &enginelog.PoolFigures{Tokens: p.Tokens, MaxConcurrency: p.MaxConcurrency, ConcurrencyLen: p.ConcurrencyLen, Utilization: p.Utilization}
	}
	for _, f := range o.Figures {
		if f.Key != DeviceUsed {
			l.Figures = append(l.Figures, enginelog.Figure{Key: f.Key, Name: f.Key, Bytes: planner.Bytes(f.Bytes), Resolution: planner.Bytes(f.Resolution)})
		}
	}
	return l
}

// DeviceUsed is the key of the figure no log prints: the device's memory in
// use after the first decode.
const DeviceUsed = "device_used"

// FigureOf returns o's figure with the key, and whether there is one.
func FigureOf(o *Observation, key string) (Figure, bool) {
	for _, f := range o.Figures {
		if f.Key == key {
			return f, true
		}
	}
	return Figure{}, false
}

// Plan plans o's configuration with calibration cal, as `vramplan check
// --log` does. A configuration that does not fit cal's budget is still
// planned: the plan's items are what the comparison reads.
func Plan(o *Observation, cal planner.Calibration) (planner.Plan, error) {
	l := Log(o)
	in, err := l.Input(o.Model.Shape, cal)
	if err != nil {
		return planner.Plan{}, err
	}
	p, err := planner.PlanMemory(in)
	if _, failed := err.(*planner.Failure); failed {
		err = nil
	}
	return p, err
}

// Calibration returns a calibration of o's GPU with no figures measured:
// enough to plan the charges that do not depend on the driver (the
// weights, the KV cache, the compute buffer), as Held does.
func Calibration(o *Observation) planner.Calibration {
	return planner.Calibration{Schema: planner.CalibrationSchema, ID: "observation", GPU: o.GPU.Name, Driver: "unknown",
		CUDA: "unknown", Platform: "linux", DeviceTotal: planner.Bytes(o.GPU.TotalMiB) * planner.MiB}
}

// estimated are the charges a profile estimates from fitted constants,
// which an observation may move (the refit reads them) but not by more
// than HeldFactor either way. llama.cpp's compute buffer is planned within
// 1 % of every run of the H200 grid (59 runs, 56 to the byte); vLLM's and
// SGLang's estimated charges have no such record yet and are not held.
var estimated = map[planner.EngineName][]string{planner.EngineLlamaCpp: {"compute_buffer"}}

// HeldFactor is how far an estimated charge may lie from the plan of the
// observation's own shape and settings before the observation is held: a
// figure more than HeldFactor times the plan's, or less than the plan's
// divided by it, beyond the figure's print resolution. So a compute
// buffer reported at 3× or 0.01× the plan is held, and 40 uploads of 3×
// cannot move E2 (#31 point 7, from 16 to 8,798,425 bytes a token).
const HeldFactor = 2

// Held returns why o contradicts the plan of its own shape and settings —
// a charge its engine's profile computes exactly differs from the figure
// by more than its print resolution, or one it estimates by more than
// HeldFactor — or nil. A held observation is kept and listed, but the
// refit leaves it out.
func Held(o *Observation) []string {
	keys := enginelog.ExactKeys(o.Engine) // the charges its profile computes to the byte
	if len(keys) == 0 && len(estimated[o.Engine]) == 0 {
		return nil
	}
	p, err := Plan(o, Calibration(o))
	if err != nil {
		return []string{"its configuration cannot be planned: " + err.Error()}
	}
	l := Log(o)
	var why []string
	for _, r := range enginelog.Compare(&l, &p) {
		switch {
		case slices.Contains(keys, r.Key) && !r.Within:
			why = append(why, fmt.Sprintf("%s is %d bytes, but the profile computes %d for this shape and these settings (exact): the shape or the settings do not describe the run, or %s allocates differently from %s",
				r.Key, r.Log, r.Plan, o.EngineVersion, profileVersion(o.Engine)))
		case slices.Contains(estimated[o.Engine], r.Key) && !plausible(o, r):
			why = append(why, fmt.Sprintf("%s is %d bytes, more than %d× from the %d the profile estimates for this shape and these settings: no constant of the profile is that far off",
				r.Key, r.Log, HeldFactor, r.Plan))
		}
	}
	return why
}

// plausible reports whether an estimated charge's figure lies within
// HeldFactor of the plan's either way, its print resolution allowed.
func plausible(o *Observation, r enginelog.Row) bool {
	f, _ := FigureOf(o, r.Key)
	got, plan, res := float64(r.Log), float64(r.Plan), float64(f.Resolution) // in float64: a plan may be near 2^62
	return got <= HeldFactor*plan+res && HeldFactor*(got+res) >= plan
}

// profileVersion is the release e's profile was read from.
func profileVersion(e planner.EngineName) string {
	if p := e.Profile(); p != nil && len(p.Versions) > 0 {
		return p.Versions[len(p.Versions)-1].ReadAt
	}
	return string(e)
}

// Version returns the engine release a start-up log states, or "" when it
// states none (enginelog.Version).
func Version(engine planner.EngineName, log []byte) string { return enginelog.Version(engine, log) }
