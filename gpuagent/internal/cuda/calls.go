package cuda

import (
	"fmt"
	"time"
	"unsafe"
)

// Info describes a device as the driver reports it.
type Info struct {
	Name          string
	TotalBytes    uint64
	SMCount       int
	CCMajor       int
	CCMinor       int
	DriverVersion int // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
	VMM           bool
	POSIXFD       bool
}

// Info returns the device's name, memory, SM count, compute capability,
// the driver's CUDA version and its VMM support.
func (d *Driver) Info() (Info, error) {
	var in Info
	err := d.call(func() error {
		var code int32
		s := d.s
		if in.DriverVersion, code = s.driverGetVersion(); code != 0 {
			return check("cuDriverGetVersion", code)
		}
		if in.Name, code = s.deviceGetName(d.dev); code != 0 {
			return check("cuDeviceGetName", code)
		}
		if in.TotalBytes, code = s.deviceTotalMem(d.dev); code != 0 {
			return check("cuDeviceTotalMem_v2", code)
		}
		return d.attrs(&in)
	})
	return in, err
}

func (d *Driver) attrs(in *Info) error {
	var vmm, fd int
	for _, a := range []struct {
		attr int
		dst  *int
	}{{AttrSMCount, &in.SMCount}, {AttrCCMajor, &in.CCMajor}, {AttrCCMinor, &in.CCMinor},
		{AttrVMMSupported, &vmm}, {AttrPOSIXFDSupported, &fd}} {
		v, code := d.s.deviceGetAttr(a.attr, d.dev)
		if code != 0 {
			return fmt.Errorf("cuDeviceGetAttribute(%d): %w", a.attr, Result(code))
		}
		*a.dst = v
	}
	in.VMM, in.POSIXFD = vmm != 0, fd != 0
	return nil
}

// MemGetInfo returns the free and total bytes of the device as the current
// context sees them.
func (d *Driver) MemGetInfo() (free, total uint64, err error) {
	err = d.call(func() error {
		var code int32
		free, total, code = d.s.memGetInfo()
		return check("cuMemGetInfo_v2", code)
	})
	return free, total, err
}

// Synchronize waits for all work in the context to finish.
func (d *Driver) Synchronize() error {
	return d.call(func() error { return check("cuCtxSynchronize", d.s.ctxSynchronize()) })
}

// MemAlloc allocates n bytes of device memory with cuMemAlloc.
func (d *Driver) MemAlloc(n uint64) (DevicePtr, error) {
	var p DevicePtr
	err := d.call(func() error {
		var code int32
		p, code = d.s.memAlloc(n)
		return checkBytes("cuMemAlloc_v2", n, code)
	})
	return p, err
}

// MemFree frees memory from MemAlloc.
func (d *Driver) MemFree(p DevicePtr) error {
	return d.call(func() error { return check("cuMemFree_v2", d.s.memFree(p)) })
}

// Memset sets n bytes at p to v.
func (d *Driver) Memset(p DevicePtr, v byte, n uint64) error {
	return d.call(func() error { return checkBytes("cuMemsetD8_v2", n, d.s.memsetD8(p, v, n)) })
}

// CopyIn copies src to device address dst.
func (d *Driver) CopyIn(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return d.call(func() error {
		return checkBytes("cuMemcpyHtoD_v2", uint64(len(src)), d.s.memcpyHtoD(dst, unsafe.Pointer(&src[0]), uint64(len(src))))
	})
}

// CopyOut copies len(dst) bytes from device address src to dst.
func (d *Driver) CopyOut(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.call(func() error {
		return checkBytes("cuMemcpyDtoH_v2", uint64(len(dst)), d.s.memcpyDtoH(unsafe.Pointer(&dst[0]), src, uint64(len(dst))))
	})
}

// Fence records an event on the default stream and waits for it, so that
// no work submitted before it still touches memory about to be unmapped.
func (d *Driver) Fence() error {
	return d.call(d.fenceLocked)
}

func (d *Driver) fenceLocked() error {
	if err := check("cuEventRecord", d.s.eventRecord(d.fence)); err != nil {
		return err
	}
	return check("cuEventSynchronize", d.s.eventSynchronize(d.fence))
}

// Since returns the time elapsed since t in microseconds.
func Since(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e3 }
