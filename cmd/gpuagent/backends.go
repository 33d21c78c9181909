package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/planner"
)

// backendOptions is what serve's flags tell a backend.
type backendOptions struct {
	device   int
	blasDirs []string          // where the start-up library measurement finds cuBLAS
	log      io.Writer         // the measurement children's progress
	fake     agent.Measurement // the fake's figures; zero fields take the calibration's
}

// backendKind opens one kind of backend for a plan. sidecar says whether
// the agent runs as a second CUDA context beside an engine by default.
type backendKind struct {
	open    func(p *planner.Plan, g *backend.PhaseGuard, o *backendOptions) (backend.Backend, agent.Device, error)
	sidecar bool
}

// backends is the --backend table: the VMM backend keeps the KV pool a
// growable reservation (seed A3.1); cuda is plain device allocations; fake
// runs the whole agent without a GPU.
var backends = map[string]backendKind{
	"fake": {open: openFake, sidecar: false},
	"cuda": {open: openCUDA, sidecar: true},
	"vmm":  {open: openVMM, sidecar: true},
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
	if err := fakeFits(p, gpuagenttest.HostAvailable); err != nil {
		return nil, nil, err
	}
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: max(m.Total-m.Used, backend.MiB),
		Granularity: backend.Bytes(p.Input.Calibration.VMM.Granularity), Quarantine: -1, Guard: g,
		Chunk: backend.Bytes(p.KV.CommitChunk), Export: true})
	return f, agent.StaticDevice{M: m, B: f}, nil
}

// fakeFits refuses a plan the host cannot back. The fake device holds real
// host memory for every byte it hands out (it poisons released memory and
// reads it back), so a plan for a large GPU, say qwen3-235b's 132 GiB of
// weights on an H200, would fail its first allocation on a smaller host,
// or be killed for memory when its pages were touched. The check is the
// plan's tiers against what the host has available, with the arithmetic.
func fakeFits(p *planner.Plan, available func() (backend.Bytes, bool)) error {
	avail, ok := available()
	if !ok {
		return nil
	}
	var need backend.Bytes
	var terms []string
	for _, t := range p.Tiers {
		if t.Tier == planner.TierDriver || t.Bytes <= 0 {
			continue // the fake charges no CUDA context or library reserve
		}
		need += backend.Bytes(t.Bytes)
		terms = append(terms, fmt.Sprintf("%s %v", t.Tier, backend.Bytes(t.Bytes)))
	}
	if meta := agent.HostMetadata(p); meta >= backend.MiB {
		need += meta
		terms = append(terms, fmt.Sprintf("KV block metadata %v", meta))
	}
	if need <= avail {
		return nil
	}
	return fmt.Errorf("--backend fake: the plan needs %v of host memory to stand in for the device (%s) and this host has %v available (MemAvailable), %v short; serve it on its GPU (--backend vmm) or plan a smaller model or context",
		need, strings.Join(terms, " + "), avail, need-avail)
}
