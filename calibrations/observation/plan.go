package observation

import (
	"fmt"

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
	for _, f := range l.Figures {
		o.Figures = append(o.Figures, Figure{Key: f.Key, Bytes: int64(f.Bytes), Resolution: int64(f.Resolution)})
	}
	o.Model.Shape.ID, o.Model.Shape.Source = "", ""
	return o
}

// Log returns o as planner/enginelog reads a log, so that its
// configuration can be planned (Log.Input) and compared (Compare).
// device_used is not a log figure and is left out.
//
// This and the other functions of an Observation are functions rather
// than methods: the reader's WebAssembly links text/template, which keeps
// every exported method of a type it may reflect on, and Plan would bring
// the whole planner into a module that only checks documents.
func Log(o *Observation) enginelog.Log {
	l := enginelog.Log{Engine: o.Engine}
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

// Held returns why o contradicts the plan of its own shape and settings —
// a charge its engine's profile computes exactly differs from the figure
// by more than its print resolution — or nil. A held observation is kept
// and listed, but the refit leaves it out.
func Held(o *Observation) []string {
	keys := enginelog.ExactKeys(o.Engine) // the charges its profile computes to the byte
	if len(keys) == 0 {
		return nil
	}
	p, err := Plan(o, Calibration(o))
	if err != nil {
		return []string{"its configuration cannot be planned: " + err.Error()}
	}
	l := Log(o)
	var why []string
	for _, r := range enginelog.Compare(&l, &p) {
		for _, k := range keys {
			if r.Key == k && !r.Within {
				why = append(why, fmt.Sprintf("%s is %d bytes, but the profile computes %d for this shape and these settings (exact): the shape or the settings do not describe the run, or %s allocates differently from %s",
					k, r.Log, r.Plan, o.EngineVersion, profileVersion(o.Engine)))
			}
		}
	}
	return why
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
