//go:build linux

package gpuagenttest

// This file is the fake's model of sharing memory with another process:
// handles created exportable are backed by a memory file, whose descriptor
// is what "export" hands out and what another process maps (Importer), so
// the two processes really do share the bytes, as they do on a GPU. The
// driver's answers are the ones notes/cuda.md records: exporting a handle
// that was not created exportable is INVALID_VALUE.

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// MemCreateExportable is cuMemCreate with requestedHandleTypes POSIX_FD:
// a handle whose memory can be exported. (Outside Linux the fake has no
// memory files and so no exportable handles, as a device without POSIX-fd
// export has none.)
func (d *Device) MemCreateExportable(n backend.Bytes) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n%d.gran != 0 {
		return 0, fail("cuMemCreate", n, backend.ErrInvalidValue)
	}
	if err := d.checkSize("cuMemCreate", n); err != nil {
		return 0, err
	}
	mem, fd, err := sharedAlloc(int(n))
	if err != nil {
		return 0, fail("cuMemCreate", n, err)
	}
	d.nextHandle++
	d.handles[d.nextHandle] = &handle{size: n, mem: mem, fd: fd}
	d.used += n
	return d.nextHandle, nil
}

// ExportFD is cuMemExportToShareableHandle to a POSIX fd: a new
// descriptor for h's memory, which the caller closes. A handle created
// without export is INVALID_VALUE, as is a released one.
func (d *Device) ExportFD(h uint64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	hd, ok := d.handles[h]
	if !ok || hd.released || hd.fd < 0 {
		return -1, fail("cuMemExportToShareableHandle", 0, backend.ErrInvalidValue)
	}
	fd, err := syscall.Dup(hd.fd)
	if err != nil {
		return -1, fail("cuMemExportToShareableHandle", hd.size, err)
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}

// freeShared poisons an exported handle's memory — a process that still
// maps it sees the poison, which is how tests catch a decommit of memory
// in use elsewhere — and gives the memory and its descriptor back.
func freeShared(h *handle) {
	if len(h.mem) > 0 {
		h.mem[0] = Poison
		for n := 1; n < len(h.mem); n *= 2 {
			copy(h.mem[n:], h.mem[:n])
		}
	}
	hostFree(h.mem)
	syscall.Close(h.fd)
	h.mem, h.fd = nil, -1
}

var _ backend.Sharer = (*Fake)(nil)

// Chunks implements backend.Sharer.
func (f *Fake) Chunks(r *backend.Region) []backend.Chunk {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.minter.CheckLive(r, "chunks")
	l := f.live[r]
	out := make([]backend.Chunk, len(l.chunks))
	for i, c := range l.chunks {
		out[i] = backend.Chunk{Offset: c.off, Size: c.size}
	}
	return out
}

// Export implements backend.Sharer.
func (f *Fake) Export(r *backend.Region, off backend.Bytes) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.minter.CheckLive(r, "export")
	if !f.cfg.Export || !r.Tag().Shared() {
		return -1, &backend.Error{Op: "Export", Bytes: off, Tag: r.Tag(), Err: backend.ErrNotSupported}
	}
	for _, c := range f.live[r].chunks {
		if c.off == off {
			fd, err := f.dev.ExportFD(c.h)
			return fd, tagged(err, r.Tag())
		}
	}
	return -1, &backend.Error{Op: "Export", Bytes: off, Tag: r.Tag(), Err: backend.ErrInvalidValue}
}

// sharedAlloc returns n zeroed bytes of a memory file, mapped shared, and
// the file's descriptor.
func sharedAlloc(n int) ([]byte, int, error) {
	fd, err := unix.MemfdCreate("gpuagenttest", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, -1, fmt.Errorf("memfd_create: %w", err)
	}
	if err := syscall.Ftruncate(fd, int64(n)); err != nil {
		syscall.Close(fd)
		return nil, -1, fmt.Errorf("ftruncate: %w", err)
	}
	mem, err := mapShared(fd, n)
	if err != nil {
		syscall.Close(fd)
		return nil, -1, err
	}
	return mem, fd, nil
}

// mapShared maps n bytes of the file fd, shared.
func mapShared(fd, n int) ([]byte, error) {
	mem, err := syscall.Mmap(fd, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap of %d bytes: %w", n, err)
	}
	return mem, nil
}
