package main

// This file opens the CUDA backends for serve and measures, at start, what
// the plan's calibration assumed: the CUDA context and the library reserve.

import (
	"errors"
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
	"github.com/vramplan/vramplan/gpuagent/backend/vmm"
	"github.com/vramplan/vramplan/gpuagent/calibrate"
	"github.com/vramplan/vramplan/planner"
)

// cudaBackend is what both CUDA backends offer serve.
type cudaBackend interface {
	backend.Backend
	MemInfo() (free, total backend.Bytes, err error)
	Close() error
}

func openCUDA(p *planner.Plan, g *backend.PhaseGuard, o *backendOptions) (backend.Backend, agent.Device, error) {
	b, err := cudamalloc.Open(cudamalloc.Options{Device: o.device, Guard: g})
	if err != nil {
		return nil, nil, err
	}
	return withDevice(p, o, b, b.Info().Name)
}

// openVMM opens the VMM backend committing the plan's chunks, with the KV
// pools exportable as POSIX fds when the calibration says the device can
// (engine processes then map the pool: gpuagent/client.MapPool).
func openVMM(p *planner.Plan, g *backend.PhaseGuard, o *backendOptions) (backend.Backend, agent.Device, error) {
	opts := vmm.Options{Device: o.device, Guard: g, Chunk: backend.Bytes(p.KV.CommitChunk),
		ExportPOSIXFD: p.Input.Calibration.VMM.POSIXFDExport}
	b, err := vmm.Open(opts)
	if errors.Is(err, backend.ErrNotSupported) && opts.ExportPOSIXFD {
		fmt.Fprintf(o.log, "gpuagent serve: the device cannot export POSIX fds, which the calibration says it can: the KV pool is not shared\n")
		opts.ExportPOSIXFD = false
		b, err = vmm.Open(opts)
	}
	if err != nil {
		return nil, nil, err
	}
	info, err := b.Info()
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return withDevice(p, o, b, info.Name)
}

// withDevice measures the context and library reserve in fresh child
// processes and returns b with a Device that reads the driver.
func withDevice(p *planner.Plan, o *backendOptions, b cudaBackend, name string) (backend.Backend, agent.Device, error) {
	free := func() (backend.Bytes, error) { f, _, err := b.MemInfo(); return f, err }
	opts := calibrate.Options{Device: o.device, Runs: 1, BLASDirs: o.blasDirs, Log: o.log}
	ctx, lib, err := calibrate.Startup(opts, p.Input.Features.EagerModuleLoading, free)
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return b, &cudaDevice{b: b, name: name, context: ctx, library: lib}, nil
}

// cudaDevice is the Device of a CUDA backend: the driver's reading now,
// and the context and library reserve measured at start.
type cudaDevice struct {
	b                cudaBackend
	name             string
	context, library backend.Bytes
}

// Measure reads free and total memory from the driver.
func (d *cudaDevice) Measure() (agent.Measurement, error) {
	free, total, err := d.b.MemInfo()
	return agent.Measurement{Name: d.name, Total: total, Used: total - free, Context: d.context,
		LibraryReserve: d.library}, err
}
