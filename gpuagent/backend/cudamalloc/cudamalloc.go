// Package cudamalloc is the cudaMalloc-style backend: every region is one
// cuMemAlloc allocation in the device's primary context, committed in full
// and never resized (seed A3.1: the backend for every tier but the KV pool).
//
// # Memory management
//
// A Region is freed by Release and only by Release; Close frees nothing, so
// release every region first. A Backend is safe for concurrent use; its
// driver calls run one at a time on the driver's thread.
package cudamalloc

import (
	"fmt"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/internal/ledger"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// minAlign is the alignment cuMemAlloc guarantees.
const minAlign = 256

// Options configures Open. Its zero value opens device 0 with no guard.
type Options struct {
	Device int                 `json:"device"` // CUDA device ordinal
	Guard  *backend.PhaseGuard `json:"-"`      // consulted on every acquisition; may be nil
}

// A Backend allocates regions with cuMemAlloc. See the package comment for
// who frees what.
type Backend struct {
	d      *cuda.Driver
	info   cuda.Info
	led    ledger.Ledger
	minter *backend.Minter
	mu     sync.Mutex
	blas   *cuda.BLAS
}

var _ backend.Backend = (*Backend)(nil)

// Open returns a Backend on the device opts names. The error wraps
// ErrNoDriver when there is no CUDA driver to load.
func Open(opts Options) (*Backend, error) {
	d, err := cuda.Open(opts.Device)
	if err != nil {
		return nil, err
	}
	info, err := d.Info()
	if err != nil {
		d.Close()
		return nil, err
	}
	g := uint64(2 * backend.MiB)
	if info.VMM {
		if g, err = d.Granularity(cuda.DeviceProp(d.Device(), false), false); err != nil {
			d.Close()
			return nil, err
		}
	}
	b := &Backend{d: d, info: info, minter: backend.NewMinter("cudamalloc")}
	b.led = ledger.Ledger{Total: backend.Bytes(info.TotalBytes), Granularity: backend.Bytes(g), Guard: opts.Guard}
	return b, nil
}

// ErrNoDriver is wrapped by Open's error when the CUDA driver cannot be
// loaded: no NVIDIA driver, or a build without cgo.
var ErrNoDriver = cuda.ErrNoDriver

// ErrNoDevice is wrapped by Open's error when the driver loads but sees no
// CUDA device, or none of the ordinal asked (CUDA_ERROR_NO_DEVICE).
var ErrNoDevice error = cuda.ErrNoDevice

// Close destroys any cuBLAS handles and releases the driver.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.blas != nil {
		b.blas.Close()
		b.blas = nil
	}
	return b.d.Close()
}

// Acquire implements backend.Backend with one cuMemAlloc. An alignment
// above 256 bytes is met by over-allocating.
func (b *Backend) Acquire(n, align backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	if align != 0 && !backend.IsPow2(align) {
		return nil, &backend.Error{Op: "Acquire", Bytes: n, Tag: tag, Err: backend.ErrInvalidValue}
	}
	if err := b.led.Admit("Acquire", n, tag); err != nil {
		return nil, err
	}
	align = max(align, minAlign)
	raw, err := b.d.MemAlloc(uint64(n + align - minAlign))
	if err != nil {
		return nil, &backend.Error{Op: "Acquire", Bytes: n, Tag: tag, Err: err}
	}
	base := backend.AlignUp(backend.Bytes(raw), align)
	r := b.minter.Mint(backend.RegionSpec{Base: backend.Addr(base), Reserved: n, Committed: n, Tag: tag, Handle: uint64(raw)})
	b.led.Acquired(tag, n, n, n)
	return r, nil
}

// AcquireGrowable returns ErrNotGrowable: cuMemAlloc memory cannot grow in
// place. Use package vmm for growable regions.
func (b *Backend) AcquireGrowable(reserve, commit backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	return nil, &backend.Error{Op: "AcquireGrowable", Bytes: reserve, Tag: tag, Err: backend.ErrNotGrowable}
}

// Release frees r with cuMemFree. Releasing r twice panics with its tag.
func (b *Backend) Release(r *backend.Region) {
	b.minter.Retire(r)
	b.led.Released(r.Tag(), r.Committed(), r.Committed(), r.Reserved())
	if err := b.d.MemFree(cuda.DevicePtr(b.minter.Handle(r))); err != nil {
		panic(fmt.Sprintf("cudamalloc: release of %v: %v", r, err))
	}
}

// Commit returns ErrNotGrowable: no region of this backend is growable.
func (b *Backend) Commit(r *backend.Region, n backend.Bytes) error {
	b.minter.CheckLive(r, "commit")
	return &backend.Error{Op: "Commit", Bytes: n, Tag: r.Tag(), Err: backend.ErrNotGrowable}
}

// Decommit returns ErrNotGrowable: no region of this backend is growable.
func (b *Backend) Decommit(r *backend.Region, n backend.Bytes) error {
	b.minter.CheckLive(r, "decommit")
	return &backend.Error{Op: "Decommit", Bytes: n, Tag: r.Tag(), Err: backend.ErrNotGrowable}
}

// Stats implements backend.Backend. Total is the device's memory; Free is
// Total less what this backend's live regions hold, not a driver reading
// (see MemInfo).
func (b *Backend) Stats() backend.Stats { return b.led.Stats() }
