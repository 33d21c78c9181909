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
// Both rules fit robustly (robust.go: Median and Line, which any engine's
// rules may use): a run implying a constant outside its plausible range
// (computePerHidden and the others below) is rejected, then a run too far
// from the others (3.5 MADs, 10 % of the centre, or its tolerance: the
// pool's 16 MiB), and a fit that leaves its range keeps the code's
// constants. The Result counts the runs each rule rejected, and the rows
// say why. An observation observation.Held holds (the server holds it
// too) is skipped before any of this.
//
// vLLM and SGLang observations are planned and their residuals reported,
// but nothing is fitted from them: E4's activation constant was fitted on
// published H100 figures, and a log's own activation figure replaces the
// estimate whenever it is given.
package refit

import (
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

// Result is a refit: the constants before and after, what each rule read
// and rejected, and each observation's residuals under the planner's
// current constants.
type Result struct {
	Old planner.LlamaCppFit `json:"old"`
	New planner.LlamaCppFit `json:"new"`
	// Compute is E2's line; PoolFA, PoolNoFA and PoolMoE are E3's groups.
	Compute  Fit   `json:"compute"`
	PoolFA   Fit   `json:"pool_fa"`
	PoolNoFA Fit   `json:"pool_no_fa"`
	PoolMoE  Fit   `json:"pool_moe"`
	Rows     []Row `json:"rows"`
}

// Row is one observation's residuals: plan − measured, per figure key.
type Row struct {
	Name      string             `json:"name"`
	Engine    planner.EngineName `json:"engine,omitempty"`
	Settings  string             `json:"settings,omitempty"`
	Residuals []Residual         `json:"residuals,omitempty"`
	// Used reports which rules read it ("E2", "E3"); Rejected which
	// rejected it and why (robust.go); Skipped why the refit left it out
	// altogether (held, not plannable).
	Used     []string `json:"used,omitempty"`
	Rejected []string `json:"rejected,omitempty"`
	Skipped  string   `json:"skipped,omitempty"`
}

// Residual is one figure's plan − measured.
type Residual struct {
	Key      string        `json:"key"`
	Plan     planner.Bytes `json:"plan_bytes"`
	Measured planner.Bytes `json:"measured_bytes"`
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

// The plausible ranges of the llama.cpp profile's constants (robust.go).
// Each is an order of magnitude or more around what the source makes of
// them, so no honest run falls outside and no upload moves a constant
// where no run could put it.
var (
	// E2's bytes a token per n_embd: the compute graph's per-token rows
	// are a few f32 activations of n_embd (4 B each; the fit is 10); 64 is
	// 16 of them.
	computePerHidden = Range{Lo: 0, Hi: 64}
	// E2's bytes a token over those rows (the fit is 16): a row of 16,384
	// f32 either way.
	computePerToken = Range{Lo: -64 << 10, Hi: 64 << 10}
	// E3's pools at the first decode: 13.6 to 81.8 MiB over the grid; a
	// GiB with flash attention, two without it or with a MoE's extra.
	poolFARange, poolRange = Range{Lo: 0, Hi: 1 << 30}, Range{Lo: 0, Hi: 2 << 30}
)

// Refit fits the constants from srcs.
func Refit(srcs []Source, cals Calibrations) Result {
	r := Result{Old: planner.LlamaCppFitted()}
	r.New = r.Old
	var e2 []Sample
	pools := map[poolGroup][]Sample{}
	for i := range srcs {
		row, s2, s3 := r.read(&srcs[i], cals)
		if s2 != nil {
			e2 = append(e2, *s2)
		}
		if s3 != nil {
			pools[s3.group] = append(pools[s3.group], s3.Sample)
		}
		r.Rows = append(r.Rows, row)
	}
	old := r.Old
	r.Compute = Line(e2, computePerHidden, computePerToken, float64(old.ComputePerHidden), float64(old.ComputePerToken))
	r.New.ComputePerHidden, r.New.ComputePerToken = int64(math.Round(r.Compute.Slope)), int64(math.Round(r.Compute.Value))
	r.PoolFA = Median(pools[poolFA], poolFARange, float64(old.PoolFA))
	r.PoolNoFA = Median(pools[poolNoFA], poolRange, float64(old.PoolFA+old.PoolNoFA))
	r.PoolMoE = Median(pools[poolMoE], poolRange, float64(old.PoolFA+old.PoolMoE))
	r.New.PoolFA = toMiB(r.PoolFA.Value)
	r.New.PoolNoFA = toMiB(r.PoolNoFA.Value) - r.New.PoolFA
	r.New.PoolMoE = toMiB(r.PoolMoE.Value) - r.New.PoolFA
	r.markRejected()
	return r
}

// markRejected notes in each row the rules that rejected it, and takes
// them from the rules it was used by.
func (r *Result) markRejected() {
	for _, rule := range []struct {
		name string
		fit  *Fit
	}{{"E2", &r.Compute}, {"E3", &r.PoolFA}, {"E3", &r.PoolNoFA}, {"E3", &r.PoolMoE}} {
		for _, rej := range rule.fit.Rejected {
			i := slices.IndexFunc(r.Rows, func(row Row) bool { return row.Name == rej.Name })
			if i < 0 {
				continue
			}
			row := &r.Rows[i]
			row.Used = slices.DeleteFunc(row.Used, func(u string) bool { return u == rule.name })
			row.Rejected = append(row.Rejected, rule.name+": "+rej.Why)
		}
	}
}

// Rejected returns how many observations the rules rejected.
func (r *Result) Rejected() int {
	n := 0
	for i := range r.Rows {
		if len(r.Rows[i].Rejected) > 0 {
			n++
		}
	}
	return n
}

type poolGroup int

const (
	poolFA poolGroup = iota
	poolNoFA
	poolMoE
)

type poolSample struct {
	group poolGroup
	Sample
}

// read plans one observation and returns its row and what the rules take
// of it.
func (r *Result) read(src *Source, cals Calibrations) (Row, *Sample, *poolSample) {
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
	whole, err := observation.Plan(o, cal)
	if err != nil {
		row.Skipped = "cannot be planned: " + err.Error()
		return row, nil, nil
	}
	p := enginelog.RankZero(&whole) // a multi-GPU run's figures are rank 0's, as check compares them
	for _, f := range o.Figures {
		plan := enginelog.Planned(p, f.Key)
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
	s2 := r.computeSample(o, p)
	s3 := poolSampleOf(o, p, measured)
	if s2 != nil {
		s2.Name = src.Name
		row.Used = append(row.Used, "E2")
	}
	if s3 != nil {
		s3.Name = src.Name
		row.Used = append(row.Used, "E3")
	}
	return row, s2, s3
}

// computeSample is E2's sample of a run, or nil when the rule does not
// read it.
func (r *Result) computeSample(o *observation.Observation, p *planner.Plan) *Sample {
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
	return &Sample{X: x, Y: y, W: 1 / (1 + res*res), Tol: res}
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
	s := &poolSample{group: poolFA, Sample: Sample{Y: float64(f.Bytes - int64(rest) - int64(planner.LlamaCppPoolCopies(&p.Input))),
		Tol: float64(max(f.Resolution, poolTol))}}
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

// poolTol is how far one run's pool may lie from its group's without being
// an outlier, whatever the spread: the grid's groups spread 10 MiB
// (13.6 to 23.4 MiB with flash attention, 70.2 to 81.8 without), and
// community calibrations allow their figures 16 MiB the same way.
const poolTol = 16 << 20

// toMiB is v bytes rounded to the MiB.
func toMiB(v float64) planner.Bytes {
	return planner.Bytes(math.Round(v/float64(planner.MiB))) * planner.MiB
}
