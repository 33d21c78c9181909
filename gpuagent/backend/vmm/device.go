package vmm

// This file gives gpuagent serve what it checks a plan against at start:
// the device's facts and the driver's free-memory reading.

import (
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// Info describes the device: name, memory, SM count, compute capability,
// the driver's CUDA version, VMM and POSIX-fd support.
type Info = cuda.Info

// Info returns the device's facts as the driver reports them.
func (b *Backend) Info() (Info, error) { return b.d.Info() }

// MemInfo returns the driver's reading of free and total device memory,
// which counts every context and library on the device, not only this
// backend's regions.
func (b *Backend) MemInfo() (free, total backend.Bytes, err error) {
	f, t, err := b.d.MemGetInfo()
	return backend.Bytes(f), backend.Bytes(t), err
}
