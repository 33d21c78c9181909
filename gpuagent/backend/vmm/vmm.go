// Package vmm is the virtual-memory-management backend: a region is a
// range of device address space reserved once, whose committed prefix is
// backed by physical memory in chunks of one handle each (cuMemCreate +
// cuMemMap + cuMemSetAccess), so it can grow and shrink while its base
// address never changes (seed A3.1, invariant I3).
//
// Decommit is hysteretic: memory given back by Decommit stays mapped, up to
// Options.Hysteresis bytes per region, and the next Commit takes it back
// without a driver call; beyond that the top chunks are unmapped and
// released, and only after an event fence, because the driver does not
// wait for kernels still touching them. Trim gives the cached memory back.
//
// # Memory management
//
// A Region is freed by Release and only by Release; Close frees nothing, so
// release every region first. A Backend is safe for concurrent use; its
// driver calls run one at a time on the driver's thread.
package vmm

import (
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/internal/ledger"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// Options configures Open. Its zero value opens device 0 with 64 MiB chunks
// and a hysteresis of two chunks.
type Options struct {
	Device int                 `json:"device"` // CUDA device ordinal
	Guard  *backend.PhaseGuard `json:"-"`      // consulted on every acquisition; may be nil
	// Chunk is the largest handle one Commit creates, rounded up to the
	// granularity; 0 means 64 MiB.
	Chunk backend.Bytes `json:"chunk_bytes"`
	// Hysteresis is how many decommitted bytes a region keeps mapped for
	// its next Commit; 0 means two chunks, negative means none.
	Hysteresis backend.Bytes `json:"hysteresis_bytes"`
	// ExportPOSIXFD creates the handles of regions under a shared tag (the
	// KV pools, backend.Tag.Shared) exportable as POSIX fds, so that
	// Export can hand them to another process. Open refuses it on a device
	// that cannot export.
	ExportPOSIXFD bool `json:"export_posix_fd"`
}

// ErrNoDriver is wrapped by Open's error when the CUDA driver cannot be
// loaded: no NVIDIA driver, or a build without cgo.
var ErrNoDriver = cuda.ErrNoDriver

// A Backend hands out VMM regions. See the package comment for who frees
// what.
type Backend struct {
	d      *cuda.Driver
	info   cuda.Info
	prop   cuda.MemAllocationProp
	shared *cuda.MemAllocationProp // for regions under a shared tag; nil without export
	g      backend.Bytes
	chunk  backend.Bytes
	keep   backend.Bytes // hysteresis, >= 0
	led    ledger.Ledger
	minter *backend.Minter
	mu     sync.Mutex
	spaces map[*backend.Region]*space
}

var _ backend.Backend = (*Backend)(nil)

// A space is the driver's view of one region: its reservation and the
// handles mapped from its base, in address order.
type space struct {
	va     cuda.DevicePtr
	prop   *cuda.MemAllocationProp
	size   backend.Bytes // reserved, a multiple of the granularity
	maps   []cuda.Mapping
	mapped backend.Bytes // bytes mapped from the base; >= the region's Committed
}

// Open returns a Backend on the device opts names. The error wraps
// ErrNoDriver when there is no CUDA driver to load, and
// backend.ErrNotSupported when the device has no VMM.
func Open(opts Options) (*Backend, error) {
	d, err := cuda.Open(opts.Device)
	if err != nil {
		return nil, err
	}
	b, err := newBackend(d, opts)
	if err != nil {
		d.Close()
		return nil, err
	}
	return b, nil
}

func newBackend(d *cuda.Driver, opts Options) (*Backend, error) {
	info, err := d.Info()
	if err != nil {
		return nil, err
	}
	if !info.VMM {
		return nil, &backend.Error{Op: "Open", Err: backend.ErrNotSupported}
	}
	if opts.ExportPOSIXFD && !info.POSIXFD {
		return nil, &backend.Error{Op: "Open (POSIX-fd export)", Err: backend.ErrNotSupported}
	}
	prop := cuda.DeviceProp(d.Device(), false)
	g, err := d.Granularity(prop, false)
	if err != nil {
		return nil, err
	}
	b := &Backend{d: d, info: info, prop: prop, g: backend.Bytes(g), minter: backend.NewMinter("vmm"), spaces: map[*backend.Region]*space{}}
	if opts.ExportPOSIXFD {
		sp := cuda.DeviceProp(d.Device(), true)
		b.shared = &sp
	}
	b.chunk = backend.AlignUp(cmpOr(opts.Chunk, 64*backend.MiB), b.g)
	b.keep = max(cmpOr(opts.Hysteresis, 2*b.chunk), 0)
	b.led = ledger.Ledger{Total: backend.Bytes(info.TotalBytes), Granularity: b.g, Guard: opts.Guard}
	return b, nil
}

func cmpOr(v, def backend.Bytes) backend.Bytes {
	if v == 0 {
		return def
	}
	return v
}

// Close releases the driver.
func (b *Backend) Close() error { return b.d.Close() }

// Granularity returns the device's minimum allocation granularity.
func (b *Backend) Granularity() backend.Bytes { return b.g }

// Chunk returns the largest handle one Commit creates.
func (b *Backend) Chunk() backend.Bytes { return b.chunk }

// Stats implements backend.Backend. Committed counts what regions have
// committed; Free is Total less what is mapped, which includes the memory
// decommitted but kept for hysteresis.
func (b *Backend) Stats() backend.Stats { return b.led.Stats() }

// Mapped returns the bytes mapped for live regions: Stats().Committed plus
// the decommitted bytes kept for hysteresis.
func (b *Backend) Mapped() backend.Bytes { return b.led.Physical() }

func fail(op string, n backend.Bytes, tag backend.Tag, err error) error {
	return &backend.Error{Op: op, Bytes: n, Tag: tag, Err: err}
}

// CanExportPOSIXFD reports whether a handle created for POSIX-fd export
// can be exported on this device: it creates one granule, exports it and
// gives both back.
func (b *Backend) CanExportPOSIXFD() (bool, error) { return b.d.ExportProbe(uint64(b.g)) }
