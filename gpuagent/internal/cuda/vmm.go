package cuda

import (
	"fmt"
	"syscall"
	"time"
)

// Granularity returns the allocation granularity for prop: the minimum, or
// the recommended one when recommended is set.
func (d *Driver) Granularity(prop MemAllocationProp, recommended bool) (uint64, error) {
	opt := MemGranularityMinimum
	if recommended {
		opt = MemGranularityRecommended
	}
	var g uint64
	err := d.call(func() error {
		var code int32
		g, code = d.s.granularity(&prop, opt)
		return check("cuMemGetAllocationGranularity", code)
	})
	return g, err
}

// AddressReserve reserves size bytes of device address space aligned to
// align (0 means the granularity).
func (d *Driver) AddressReserve(size, align uint64) (DevicePtr, error) {
	var p DevicePtr
	err := d.call(func() error {
		var code int32
		p, code = d.s.addressReserve(size, align)
		return checkBytes("cuMemAddressReserve", size, code)
	})
	return p, err
}

// AddressFree returns address space from AddressReserve. Nothing may be
// mapped in it.
func (d *Driver) AddressFree(p DevicePtr, size uint64) error {
	return d.call(func() error { return checkBytes("cuMemAddressFree", size, d.s.addressFree(p, size)) })
}

// Commit backs [va, va+size) with one new handle: cuMemCreate, cuMemMap and
// cuMemSetAccess on the driver thread in one go. On failure nothing is left
// mapped or allocated.
func (d *Driver) Commit(va DevicePtr, size uint64, prop MemAllocationProp) (MemHandle, error) {
	var h MemHandle
	err := d.call(func() error {
		var err error
		h, err = d.commitLocked(va, size, &prop)
		return err
	})
	return h, err
}

func (d *Driver) commitLocked(va DevicePtr, size uint64, prop *MemAllocationProp) (MemHandle, error) {
	s := d.s
	h, code := s.memCreate(size, prop)
	if code != 0 {
		return 0, checkBytes("cuMemCreate", size, code)
	}
	if code := s.memMap(va, size, h); code != 0 {
		s.memRelease(h)
		return 0, checkBytes("cuMemMap", size, code)
	}
	desc := ReadWrite(Device(prop.Location.ID))
	if code := s.memSetAccess(va, size, &desc); code != 0 {
		s.memUnmap(va, size)
		s.memRelease(h)
		return 0, checkBytes("cuMemSetAccess", size, code)
	}
	return h, nil
}

// A Mapping is one handle mapped at an address.
type Mapping struct {
	VA   DevicePtr
	Size uint64
	H    MemHandle
}

// Decommit fences, then unmaps and releases every mapping, on the driver
// thread in one go. It stops at the first failure, and returns how many
// mappings it undid.
func (d *Driver) Decommit(ms []Mapping) (int, error) {
	n := 0
	err := d.call(func() error {
		if err := d.fenceLocked(); err != nil {
			return err
		}
		for _, m := range ms {
			if err := d.decommitLocked(m); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func (d *Driver) decommitLocked(m Mapping) error {
	if code := d.s.memUnmap(m.VA, m.Size); code != 0 {
		return checkBytes("cuMemUnmap", m.Size, code)
	}
	return checkBytes("cuMemRelease", m.Size, d.s.memRelease(m.H))
}

// ExportProbe reports whether a handle of size bytes created for POSIX-fd
// export can be exported: it creates one, exports it, closes the fd and
// releases the handle.
func (d *Driver) ExportProbe(size uint64) (bool, error) {
	ok := false
	err := d.call(func() error {
		prop := DeviceProp(d.dev, true)
		h, code := d.s.memCreate(size, &prop)
		if r := Result(code); r == ErrInvalidValue || r == ErrNotSupported {
			return nil // the device cannot make exportable handles
		} else if code != 0 {
			return checkBytes("cuMemCreate", size, code)
		}
		defer d.s.memRelease(h)
		fd, code := d.s.exportFD(h)
		if code == 0 {
			ok = true
			syscall.Close(fd)
		}
		return nil
	})
	return ok, err
}

// RawTimes is what the raw driver calls of one commit/decommit round cost,
// in microseconds.
type RawTimes struct {
	Commit, Decommit []float64
}

// RawCommitDecommit commits and decommits [va, va+size) rounds times with
// the bare driver calls, back to back on the driver thread with nothing
// between them but the clock, and times each half. It is the baseline the
// VMM backend's overhead is measured against.
func (d *Driver) RawCommitDecommit(va DevicePtr, size uint64, rounds int) (RawTimes, error) {
	var t RawTimes
	err := d.call(func() error {
		prop := DeviceProp(d.dev, false)
		for range rounds {
			t0 := time.Now()
			h, err := d.commitLocked(va, size, &prop)
			if err != nil {
				return err
			}
			t1 := time.Now()
			if err := d.fenceLocked(); err != nil {
				return err
			}
			if err := d.decommitLocked(Mapping{va, size, h}); err != nil {
				return fmt.Errorf("raw round: %w", err)
			}
			t.Commit = append(t.Commit, float64(t1.Sub(t0).Nanoseconds())/1e3)
			t.Decommit = append(t.Decommit, Since(t1))
		}
		return nil
	})
	return t, err
}

// ExportFD returns a new POSIX file descriptor for handle h, which must
// have been created for POSIX-fd export (DeviceProp with posixFD set): the
// driver answers INVALID_VALUE otherwise. The caller closes the fd.
func (d *Driver) ExportFD(h MemHandle) (int, error) {
	fd := -1
	err := d.call(func() error {
		var code int32
		fd, code = d.s.exportFD(h)
		return check("cuMemExportToShareableHandle", code)
	})
	return fd, err
}

// MapFD imports the allocation another process exported as fd and maps
// all size bytes of it at va, readable and writable by this device. The
// imported handle is released at once: the driver keeps the memory until
// the mapping goes (Unmap). fd stays open; the caller closes it.
func (d *Driver) MapFD(va DevicePtr, size uint64, fd int) error {
	return d.call(func() error {
		s := d.s
		h, code := s.importFD(fd)
		if code != 0 {
			return checkBytes("cuMemImportFromShareableHandle", size, code)
		}
		defer s.memRelease(h)
		if code := s.memMap(va, size, h); code != 0 {
			return checkBytes("cuMemMap", size, code)
		}
		desc := ReadWrite(d.dev)
		if code := s.memSetAccess(va, size, &desc); code != 0 {
			s.memUnmap(va, size)
			return checkBytes("cuMemSetAccess", size, code)
		}
		return nil
	})
}

// Unmap unmaps [va, va+size), which must cover whole mappings, after
// waiting for all work in the context, on every stream (cuCtxSynchronize):
// an importer cannot know which of its streams still touch the memory.
func (d *Driver) Unmap(va DevicePtr, size uint64) error {
	return d.call(func() error {
		if err := check("cuCtxSynchronize", d.s.ctxSynchronize()); err != nil {
			return err
		}
		return checkBytes("cuMemUnmap", size, d.s.memUnmap(va, size))
	})
}
