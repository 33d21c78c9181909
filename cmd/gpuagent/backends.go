package main

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/planner"
)

// backendOptions is what serve's flags tell a backend.
type backendOptions struct {
	device int
	fake   agent.Measurement // the fake's figures; zero fields take the calibration's
}

// backendKind opens one kind of backend for a plan. sidecar says whether
// the agent runs as a second CUDA context beside an engine by default.
type backendKind struct {
	open    func(p *planner.Plan, g *backend.PhaseGuard, o *backendOptions) (backend.Backend, agent.Device, error)
	sidecar bool
}

// backends is the --backend table. The cuda and vmm entries are filled in
// where the CUDA backends are built.
var backends = map[string]backendKind{
	"fake": {open: openFake, sidecar: false},
	"cuda": {open: notBuilt("cuda"), sidecar: true},
	"vmm":  {open: notBuilt("vmm"), sidecar: true},
}

func notBuilt(name string) func(*planner.Plan, *backend.PhaseGuard, *backendOptions) (backend.Backend, agent.Device, error) {
	return func(*planner.Plan, *backend.PhaseGuard, *backendOptions) (backend.Backend, agent.Device, error) {
		return nil, nil, fmt.Errorf("--backend %s is not built into this binary yet (use --backend fake)", name)
	}
}

// openFake sizes a fake device from the plan's calibration: its capacity
// is the device total less what the driver and libraries take.
func openFake(p *planner.Plan, g *backend.PhaseGuard, o *backendOptions) (backend.Backend, agent.Device, error) {
	m := agent.CalibratedMeasurement(p)
	if o.fake.Total > 0 {
		m.Total = o.fake.Total
	}
	if o.fake.Context > 0 {
		m.Context = o.fake.Context
	}
	if o.fake.LibraryReserve > 0 {
		m.LibraryReserve = o.fake.LibraryReserve
	}
	m.Used = m.Context + m.LibraryReserve
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: max(m.Total-m.Used, backend.MiB),
		Granularity: backend.Bytes(p.Input.Calibration.VMM.Granularity), Quarantine: -1, Guard: g})
	return f, agent.StaticDevice{M: m, B: f}, nil
}
