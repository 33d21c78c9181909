package agent

// This file checks a plan against the device before anything is acquired:
// the plan must fit what the device measures now, and the calibration it
// was made with must still describe the device (the seed's open question
// on calibration: re-measure at start, refuse beyond 10 %).

import (
	"errors"
	"fmt"
	"log"
	"math"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

var logPrintf = log.Printf

// A Device measures the GPU the agent runs on. A real backend measures the
// driver; a fake one reports figures it was given.
type Device interface {
	Measure() (Measurement, error)
}

// Measurement is what the device reports now.
type Measurement struct {
	Name           string        `json:"name"`
	Total          backend.Bytes `json:"total_bytes"`           // device total
	Used           backend.Bytes `json:"used_bytes"`            // used by every process, this one included
	Context        backend.Bytes `json:"context_bytes"`         // this process's CUDA context
	LibraryReserve backend.Bytes `json:"library_reserve_bytes"` // claimed by the libraries on first dispatch
}

// StaticDevice is the Device of a fake backend: fixed figures, plus the
// bytes the backend has committed counted as used.
type StaticDevice struct {
	M Measurement
	B backend.Backend
}

// Measure implements Device.
func (d StaticDevice) Measure() (Measurement, error) {
	m := d.M
	m.Used += d.B.Stats().Committed
	return m, nil
}

// LoadReason classifies why Load refused a plan.
type LoadReason string

// Load refusals.
const (
	ReasonInvalidPlan      LoadReason = "invalid_plan"      // the plan does not fit its own budget, or has no KV pool
	ReasonDeviceTooSmall   LoadReason = "device_too_small"  // the measured device cannot hold the plan
	ReasonCalibration      LoadReason = "calibration_drift" // measured context or library reserve off by more than the tolerance
	ReasonSidecarUncharged LoadReason = "sidecar_uncharged" // running as a sidecar, the plan does not charge its context
	ReasonAcquire          LoadReason = "acquire"           // a tier could not be acquired
)

// A LoadError is Load's refusal. Report is the seed's failure report
// (A4.3) for the plan re-made with what the device measured, when there is
// one.
type LoadError struct {
	Reason  LoadReason
	Message string
	Report  string
	Err     error
}

func (e *LoadError) Error() string {
	s := "gpuagent: refusing the plan (" + string(e.Reason) + "): " + e.Message
	if e.Report != "" {
		s += "\n\n" + e.Report
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *LoadError) Unwrap() error { return e.Err }

func refuse(r LoadReason, format string, args ...any) *LoadError {
	return &LoadError{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// check refuses a plan the device cannot hold as measured, and returns the
// warnings for one it can.
func check(p *planner.Plan, m Measurement, cfg *Config) ([]string, error) {
	if !p.Fits {
		return nil, &LoadError{Reason: ReasonInvalidPlan, Message: "the plan does not fit its own budget", Report: p.Text()}
	}
	if p.KV.Blocks <= 0 {
		return nil, refuse(ReasonInvalidPlan, "the plan has no KV pool to serve")
	}
	warn, err := checkSidecar(p, cfg.Sidecar)
	if err != nil {
		return nil, err
	}
	if err := checkDrift(p, m, cfg.Tolerance); err != nil {
		return nil, err
	}
	return warn, checkCapacity(p, m)
}

func checkSidecar(p *planner.Plan, sidecar bool) ([]string, error) {
	charged := p.Input.Features.SidecarAgent
	switch {
	case sidecar && !charged:
		return nil, refuse(ReasonSidecarUncharged, "the agent runs as a sidecar, a second CUDA context on the device, "+
			"and the plan does not charge it: re-plan with --sidecar (features.sidecar_agent), or serve with --sidecar=false "+
			"when no engine process shares the device")
	case !sidecar && charged:
		return []string{"the plan charges a sidecar agent context, but the agent does not run as one: that charge is headroom"}, nil
	}
	return nil, nil
}

func checkDrift(p *planner.Plan, m Measurement, tol float64) error {
	want := CalibratedMeasurement(p)
	for _, c := range []struct {
		name           string
		planned, found backend.Bytes
	}{{"CUDA context", want.Context, m.Context}, {"library reserve", want.LibraryReserve, m.LibraryReserve}} {
		if d := drift(c.planned, c.found); d > tol {
			return refuse(ReasonCalibration, "measured %s is %v, the plan's calibration %s says %v (%.1f %% off, more than %.0f %%): "+
				"re-calibrate (gpuagent calibrate) and re-plan", c.name, c.found, p.Input.Calibration.ID, c.planned, 100*d, 100*tol)
		}
	}
	return nil
}

func drift(planned, found backend.Bytes) float64 {
	if planned == 0 {
		return math.Abs(float64(found)) / float64(backend.MiB) / 100 // 100 MiB counts as 100 %
	}
	return math.Abs(float64(found-planned)) / float64(planned)
}

// checkCapacity re-plans the plan's input with what the device measured
// and refuses, with the seed's failure report, when that does not fit or
// when the device has less free than the tiers need. A device whose total
// is the calibration's changes no input, and the plan is then its own
// re-plan (ParsePlan made it again), so it is not made a third time: that
// was a sixth of a FuzzAgent execution.
func checkCapacity(p *planner.Plan, m Measurement) error {
	in := p.Input
	in.Calibration.DeviceTotal = planner.Bytes(m.Total)
	if in.Budget > in.Calibration.DeviceTotal {
		in.Budget = in.Calibration.DeviceTotal
	}
	if in.Calibration.DeviceTotal != p.Input.Calibration.DeviceTotal || in.Budget != p.Input.Budget {
		if err := replan(in, p, m); err != nil {
			return err
		}
	}
	need := tiersBytes(p)
	if free := m.Total - m.Used; need > free {
		return refuse(ReasonDeviceTooSmall, "the tiers need %v and the device has %v free (%v used of %v): "+
			"another process holds memory the plan counted on", need, free, m.Used, m.Total)
	}
	return nil
}

// replan refuses p when its input in, changed to the measured device m,
// does not fit.
func replan(in planner.Input, p *planner.Plan, m Measurement) error {
	again, err := planner.Report(in)
	var f *planner.Failure
	if errors.As(err, &f) {
		return &LoadError{Reason: ReasonDeviceTooSmall, Report: again.Text(),
			Message: fmt.Sprintf("the device reports %v in total; the plan needs %v", m.Total, backend.Bytes(p.Total))}
	}
	if err != nil {
		return refuse(ReasonInvalidPlan, "re-planning for the measured device: %v", err)
	}
	return nil
}

// tiersBytes is what the agent acquires: every item but the driver's.
func tiersBytes(p *planner.Plan) backend.Bytes {
	var n backend.Bytes
	for _, it := range p.Items {
		if it.Tier != planner.TierDriver {
			n += backend.Bytes(it.Bytes)
		}
	}
	return n
}

// CalibratedMeasurement is what a device exactly as the plan's calibration
// describes would measure before the agent acquires anything: the figures
// a fake backend reports.
func CalibratedMeasurement(p *planner.Plan) Measurement {
	cal := p.Input.Calibration
	eager := p.Input.Features.EagerModuleLoading
	m := Measurement{Name: "fake " + cal.ID, Total: backend.Bytes(cal.DeviceTotal),
		Context: backend.Bytes(cal.Context), LibraryReserve: backend.Bytes(cal.LibraryReserve)}
	if eager && cal.ContextEager > 0 {
		m.Context = backend.Bytes(cal.ContextEager)
	}
	if eager && cal.LibraryReserveEager > 0 {
		m.LibraryReserve = backend.Bytes(cal.LibraryReserveEager)
	}
	m.Used = m.Context + m.LibraryReserve
	return m
}
