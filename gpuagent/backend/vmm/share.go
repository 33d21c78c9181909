package vmm

// This file is the backend's half of sharing the KV pools with engine
// processes (backend.Sharer): the committed chunks of a region and their
// export as POSIX file descriptors.

import (
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

var _ backend.Sharer = (*Backend)(nil)

// Chunks implements backend.Sharer: the handles mapped under r's committed
// prefix, one chunk each. Handles kept mapped above it for hysteresis are
// not part of it.
func (b *Backend) Chunks(r *backend.Region) []backend.Chunk {
	s := b.space(r, "chunks")
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backend.Chunk
	for _, m := range s.maps {
		off := backend.Bytes(m.VA - s.va)
		if off >= r.Committed() {
			break
		}
		out = append(out, backend.Chunk{Offset: off, Size: backend.Bytes(m.Size)})
	}
	return out
}

// Export implements backend.Sharer with cuMemExportToShareableHandle.
func (b *Backend) Export(r *backend.Region, off backend.Bytes) (int, error) {
	s := b.space(r, "export")
	if s.prop.RequestedHandleTypes&cuda.MemHandleTypePOSIXFD == 0 {
		return -1, fail("Export", off, r.Tag(), backend.ErrNotSupported)
	}
	b.mu.Lock()
	h, ok := s.handleAt(off, r.Committed())
	b.mu.Unlock()
	if !ok {
		return -1, fail("Export", off, r.Tag(), backend.ErrInvalidValue)
	}
	fd, err := b.d.ExportFD(h)
	if err != nil {
		return -1, fail("Export", off, r.Tag(), err)
	}
	return fd, nil
}

// handleAt returns the handle of the committed mapping that starts at off.
func (s *space) handleAt(off, committed backend.Bytes) (cuda.MemHandle, bool) {
	for _, m := range s.maps {
		if backend.Bytes(m.VA-s.va) == off && off < committed {
			return m.H, true
		}
	}
	return 0, false
}
