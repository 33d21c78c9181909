// Package refit derives the llama.cpp profile's estimated constants (E2
// and E3 in docs/architecture.md, planner.LlamaCppFit) from engine
// observations: the checked-in H200 grid (Grid) and the observations
// operators upload (calibrations/observation). Refit prints nothing;
// `vramplan engines refit` shows its Result, and this package's test holds
// the constants in the planner to the refit of the checked-in grid, so they
// are derived and checkable rather than chosen.
//
// The rules, which planner.LlamaCppFit's fields state too:
//
//   - E2, the compute buffer's per-token term with flash attention off:
//     from every full-attention run whose KQ scores are its largest tensor,
//     the term the run implies (its compute buffer less the plan's KQ and
//     mask terms, per token); ComputePerHidden and ComputePerToken are the
//     weighted least-squares line over n_embd (a figure's weight falls with
//     its print resolution per token), rounded to the byte. ComputePerQuery
//     is structural and kept.
//   - E3, the first decode's CUDA pool: for every run with the device's
//     memory in use after the first decode and a measured calibration of
//     its GPU, that figure less the plan's other charges and, without
//     flash attention, less attention's f16 copies in the pool (a rule
//     from the source, not fitted); the median of each group (flash
//     attention on, off, and on with a MoE), rounded to the MiB, the
//     MoE's and the no-flash-attention group's less PoolFA, which their
//     runs' pools include.
//
// vLLM and SGLang observations are planned and their residuals reported,
// but nothing is fitted from them: E4's activation constant was fitted on
// published H100 figures, and a log's own activation figure replaces the
// estimate whenever it is given.
package refit

import (
	"cmp"
	"math"
	"slices"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// Source is one observation the refit reads.
type Source struct {
	// Name says where it came from: a grid run's path, an upload's id.
	Name        string
	Observation observation.Observation
}

// Result is a refit: the constants before and after, how many runs each
// rule read, and each observation's residuals under the planner's
// current constants.
type Result struct {
	Old, New planner.LlamaCppFit
	// ComputeRuns, PoolRuns count the runs E2 and E3 read; PoolFA,
	// PoolNoFA and PoolMoE count each E3 group.
	ComputeRuns, PoolFA, PoolNoFA, PoolMoE int
	Rows                                   []Row
}

// Row is one observation's residuals: plan − measured, per figure key.
type Row struct {
	Name      string
	Engine    planner.EngineName
	Settings  string
	Residuals []Residual
	// Used reports which rules read it ("E2", "E3"); Skipped why the refit
	// left it out altogether (held, not plannable).
	Used    []string
	Skipped string
}

// Residual is one figure's plan − measured.
type Residual struct {
	Key      string
	Plan     planner.Bytes
	Measured planner.Bytes
}

// Calibrations finds the measured calibration of an observation's GPU; the
// refit reads device_used only where it returns one.
type Calibrations func(gpu observation.GPU) (planner.Calibration, bool)

// Table returns the Calibrations of a calibration table: the measured entry
// whose GPU and total match.
func Table(all []planner.Calibration) Calibrations {
	return func(g observation.GPU) (planner.Calibration, bool) {
		for _, c := range all {
			if c.Kind() == planner.CalibrationMeasured && community.NormalizeGPU(c.GPU) == community.NormalizeGPU(g.Name) &&
				int64(c.DeviceTotal/planner.MiB) == g.TotalMiB {
				return c, true
			}
		}
		return planner.Calibration{}, false
	}
}

// Refit fits the constants from srcs.
func Refit(srcs []Source, cals Calibrations) Result {
	r := Result{Old: planner.LlamaCppFitted()}
	r.New = r.Old
	var e2 []sample
	pools := map[poolGroup][]float64{}
	for i := range srcs {
		row, s2, s3 := r.read(&srcs[i], cals)
		if s2 != nil {
			e2 = append(e2, *s2)
		}
		if s3 != nil {
			pools[s3.group] = append(pools[s3.group], s3.bytes)
		}
		r.Rows = append(r.Rows, row)
	}
	r.ComputeRuns = len(e2)
	r.New.ComputePerHidden, r.New.ComputePerToken = fitLine(e2, r.Old.ComputePerHidden, r.Old.ComputePerToken)
	r.PoolFA, r.PoolNoFA, r.PoolMoE = len(pools[poolFA]), len(pools[poolNoFA]), len(pools[poolMoE])
	r.New.PoolFA = medianMiB(pools[poolFA], r.Old.PoolFA)
	r.New.PoolNoFA = medianMiB(pools[poolNoFA], r.Old.PoolFA+r.Old.PoolNoFA) - r.New.PoolFA
	r.New.PoolMoE = medianMiB(pools[poolMoE], r.Old.PoolFA+r.Old.PoolMoE) - r.New.PoolFA
	return r
}

// A sample is one run's implied per-token term y at n_embd x, weighted.
type sample struct{ x, y, w float64 }

type poolGroup int

const (
	poolFA poolGroup = iota
	poolNoFA
	poolMoE
)

type poolSample struct {
	group poolGroup
	bytes float64
}

// read plans one observation and returns its row and what the rules take
// of it.
func (r *Result) read(src *Source, cals Calibrations) (Row, *sample, *poolSample) {
	o := &src.Observation
	row := Row{Name: src.Name, Engine: o.Engine, Settings: settings(o)}
	if held := observation.Held(o); len(held) > 0 {
		row.Skipped = "held: " + held[0]
		return row, nil, nil
	}
	cal, measured := cals(o.GPU)
	if !measured {
		cal = observation.Calibration(o)
	}
	p, err := observation.Plan(o, cal)
	if err != nil {
		row.Skipped = "cannot be planned: " + err.Error()
		return row, nil, nil
	}
	for _, f := range o.Figures {
		plan := enginelog.Planned(&p, f.Key)
		if f.Key == observation.DeviceUsed {
			if !measured {
				continue // the plan's total needs the GPU's measured context and library reserve
			}
			plan = p.Total
		}
		row.Residuals = append(row.Residuals, Residual{Key: f.Key, Plan: plan, Measured: planner.Bytes(f.Bytes)})
	}
	if o.Engine != planner.EngineLlamaCpp {
		return row, nil, nil
	}
	s2 := r.computeSample(o, &p)
	s3 := poolSampleOf(o, &p, measured)
	if s2 != nil {
		row.Used = append(row.Used, "E2")
	}
	if s3 != nil {
		row.Used = append(row.Used, "E3")
	}
	return row, s2, s3
}

// computeSample is E2's sample of a run, or nil when the rule does not
// read it.
func (r *Result) computeSample(o *observation.Observation, p *planner.Plan) *sample {
	f, ok := observation.FigureOf(o, "compute_buffer")
	m := &o.Model.Shape
	ub := int64(min(o.LlamaCpp.NUbatch, 2048, o.LlamaCpp.NCtx))
	if !ok || o.LlamaCpp.FlashAttn || !fullAttention(m) || ub <= 0 {
		return nil
	}
	planned := enginelog.Planned(p, "compute_buffer")
	if int64(planned) <= ub*(int64(m.VocabSize)+int64(m.HiddenSize))*4 {
		return nil // the logits are the largest tensor: the term is not seen
	}
	x := float64(m.HiddenSize)
	perToken := float64(f.Bytes-int64(planned)) / float64(ub)
	y := perToken + float64(r.Old.ComputePerHidden)*x + float64(r.Old.ComputePerToken)
	res := float64(f.Resolution) / float64(ub)
	return &sample{x: x, y: y, w: 1 / (1 + res*res)}
}

// poolSampleOf is E3's sample of a run, or nil: the run's device memory
// less the plan's other charges and, without flash attention, less
// attention's f16 copies, which the planner computes from the shape
// (planner.LlamaCppPoolCopies).
func poolSampleOf(o *observation.Observation, p *planner.Plan, measured bool) *poolSample {
	f, ok := observation.FigureOf(o, observation.DeviceUsed)
	if !ok || !measured {
		return nil
	}
	rest := p.Total - enginelog.Planned(p, "cuda_pool")
	s := &poolSample{group: poolFA, bytes: float64(f.Bytes - int64(rest) - int64(planner.LlamaCppPoolCopies(&p.Input)))}
	switch {
	case !o.LlamaCpp.FlashAttn:
		s.group = poolNoFA
	case o.Model.Shape.MoE != nil && o.Model.Shape.MoE.Experts > 0:
		s.group = poolMoE
	}
	return s
}

func fullAttention(m *planner.Model) bool {
	for _, l := range m.Layers {
		if l.Kind != planner.LayerFull {
			return false
		}
	}
	return len(m.Layers) > 0
}

// fitLine is the weighted least-squares line y = b·x + c, rounded to whole
// bytes; with fewer than two distinct x it keeps b and fits c alone, and
// with no sample it keeps both.
func fitLine(s []sample, b0, c0 int64) (int64, int64) {
	var sw, sx, sy, sxx, sxy float64
	for _, p := range s {
		sw += p.w
		sx += p.w * p.x
		sy += p.w * p.y
		sxx += p.w * p.x * p.x
		sxy += p.w * p.x * p.y
	}
	if sw == 0 {
		return b0, c0
	}
	d := sw*sxx - sx*sx
	if math.Abs(d) <= 1e-9*sw*sxx {
		return b0, int64(math.Round((sy - float64(b0)*sx) / sw))
	}
	b := (sw*sxy - sx*sy) / d
	return int64(math.Round(b)), int64(math.Round((sy - b*sx) / sw))
}

// medianMiB is the median of v (bytes) rounded to the MiB, or keep when v
// is empty.
func medianMiB(v []float64, keep planner.Bytes) planner.Bytes {
	if len(v) == 0 {
		return keep
	}
	v = slices.Clone(v)
	slices.SortFunc(v, cmp.Compare)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + m) / 2
	}
	return planner.Bytes(math.Round(m/float64(planner.MiB))) * planner.MiB
}
