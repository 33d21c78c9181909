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

// Log returns the observation as planner/enginelog reads a log, so that
// its configuration can be planned (Log.Input) and compared (Compare).
// device_used is not a log figure and is left out.
func (o *Observation) Log() enginelog.Log {
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

// Figure returns the figure with the key, and whether there is one.
func (o *Observation) Figure(key string) (Figure, bool) {
	for _, f := range o.Figures {
		if f.Key == key {
			return f, true
		}
	}
	return Figure{}, false
}

// Plan plans the observation's configuration with calibration cal, as
// `vramplan check --log` does. A configuration that does not fit cal's
// budget is still planned: the plan's items are what the comparison reads.
func (o *Observation) Plan(cal planner.Calibration) (planner.Plan, error) {
	l := o.Log()
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

// Calibration returns a calibration of the observation's GPU with no
// figures measured: enough to plan the charges that do not depend on the
// driver (the weights, the KV cache, the compute buffer), as Check does.
func (o *Observation) Calibration() planner.Calibration {
	return planner.Calibration{Schema: planner.CalibrationSchema, ID: "observation", GPU: o.GPU.Name, Driver: "unknown",
		CUDA: "unknown", Platform: "linux", DeviceTotal: planner.Bytes(o.GPU.TotalMiB) * planner.MiB}
}

// exact are the charges a profile computes to the byte, which an
// observation of the same shape and settings must match.
var exact = map[planner.EngineName][]string{planner.EngineLlamaCpp: {"weights", "kv"}}

// consistency returns why o contradicts the plan of its own shape and
// settings: a charge its engine's profile computes exactly that differs
// from the figure by more than its print resolution.
func consistency(o *Observation) []string {
	keys := exact[o.Engine]
	if len(keys) == 0 {
		return nil
	}
	p, err := o.Plan(o.Calibration())
	if err != nil {
		return []string{"its configuration cannot be planned: " + err.Error()}
	}
	l := o.Log()
	var why []string
	for _, r := range enginelog.Compare(&l, &p) {
		for _, k := range keys {
			if r.Key == k && !r.Within {
				why = append(why, fmt.Sprintf("%s is %d bytes, but the profile computes %d for this shape and these settings (exact): the shape or the settings do not describe the run, or %s allocates differently from %s",
					k, r.Log, r.Plan, o.EngineVersion, planner.LlamaCppVersion))
			}
		}
	}
	return why
}
