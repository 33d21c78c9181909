package cuda

import (
	"runtime"
	"sync"
	"unsafe"
)

// shim is the table of driver entry points, filled by the platform's
// loadDriver. Each field wraps one driver function and returns its status
// code; none may be called off the driver's thread.
type shim struct {
	driverGetVersion  func() (int, int32)
	deviceGetCount    func() (int, int32)
	deviceGet         func(ordinal int) (Device, int32)
	deviceGetName     func(dev Device) (string, int32)
	deviceTotalMem    func(dev Device) (uint64, int32)
	deviceGetAttr     func(attr int, dev Device) (int, int32)
	primaryCtxRetain  func(dev Device) (uintptr, int32)
	primaryCtxRelease func(dev Device) int32
	ctxSetCurrent     func(ctx uintptr) int32
	ctxSynchronize    func() int32
	memGetInfo        func() (free, total uint64, code int32)
	memAlloc          func(n uint64) (DevicePtr, int32)
	memFree           func(p DevicePtr) int32
	memsetD8          func(p DevicePtr, v byte, n uint64) int32
	memcpyHtoD        func(dst DevicePtr, src unsafe.Pointer, n uint64) int32
	memcpyDtoH        func(dst unsafe.Pointer, src DevicePtr, n uint64) int32
	addressReserve    func(size, align uint64) (DevicePtr, int32)
	addressFree       func(p DevicePtr, size uint64) int32
	memCreate         func(size uint64, prop *MemAllocationProp) (MemHandle, int32)
	memRelease        func(h MemHandle) int32
	memMap            func(p DevicePtr, size uint64, h MemHandle) int32
	memUnmap          func(p DevicePtr, size uint64) int32
	memSetAccess      func(p DevicePtr, size uint64, desc *MemAccessDesc) int32
	granularity       func(prop *MemAllocationProp, option int) (uint64, int32)
	exportFD          func(h MemHandle) (int, int32)
	importFD          func(fd int) (MemHandle, int32)
	eventCreate       func() (uintptr, int32)
	eventRecord       func(ev uintptr) int32
	eventSynchronize  func(ev uintptr) int32
	eventDestroy      func(ev uintptr) int32
}

// A Driver is the loaded CUDA driver with one device's primary context
// current on a dedicated OS thread. Every method runs its driver calls on
// that thread, so a Driver is safe for concurrent use; calls are executed
// one at a time, in the order they arrive.
//
// Memory obtained through a Driver is the caller's to free before Close,
// which releases the primary context and stops the thread.
type Driver struct {
	s     *shim
	dev   Device
	h     handoff
	once  sync.Once
	fence uintptr // event recorded and waited on by Fence
}

// Open loads the driver, initializes it and makes device ordinal's primary
// context current on a new locked OS thread. It returns ErrNoDriver (wrapped)
// when the driver cannot be loaded, and ErrNoDevice when ordinal does not
// exist.
func Open(ordinal int) (*Driver, error) {
	s, err := loadDriver()
	if err != nil {
		return nil, err
	}
	d := &Driver{s: s}
	d.h.init()
	started := make(chan error)
	go d.loop(ordinal, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return d, nil
}

// loop is the driver thread: it sets up the context, reports to started,
// then runs submitted work until Close.
func (d *Driver) loop(ordinal int, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.setup(ordinal); err != nil {
		started <- err
		return
	}
	started <- nil
	d.h.serve()
}

func (d *Driver) setup(ordinal int) error {
	s := d.s
	n, code := s.deviceGetCount()
	if err := check("cuDeviceGetCount", code); err != nil {
		return err
	}
	if ordinal < 0 || ordinal >= n {
		return check("cuDeviceGet", int32(ErrNoDevice))
	}
	dev, code := s.deviceGet(ordinal)
	if err := check("cuDeviceGet", code); err != nil {
		return err
	}
	ctx, code := s.primaryCtxRetain(dev)
	if err := check("cuDevicePrimaryCtxRetain", code); err != nil {
		return err
	}
	if err := check("cuCtxSetCurrent", s.ctxSetCurrent(ctx)); err != nil {
		s.primaryCtxRelease(dev)
		return err
	}
	ev, code := s.eventCreate()
	if err := check("cuEventCreate", code); err != nil {
		s.primaryCtxRelease(dev)
		return err
	}
	d.dev, d.fence = dev, ev
	return nil
}

// Do runs f on the driver thread and waits for it. It returns ErrClosed
// after Close. Do must not be called from inside f.
func (d *Driver) Do(f func()) error { return d.h.do(f) }

// call runs f on the driver thread and returns its error.
func (d *Driver) call(f func() error) error {
	var err error
	if e := d.Do(func() { err = f() }); e != nil {
		return e
	}
	return err
}

// Close releases the primary context and stops the driver thread. Further
// calls return ErrClosed. Close is idempotent.
func (d *Driver) Close() error {
	var err error
	d.once.Do(func() {
		err = d.call(func() error {
			d.s.eventDestroy(d.fence)
			return check("cuDevicePrimaryCtxRelease", d.s.primaryCtxRelease(d.dev))
		})
		d.h.close()
	})
	return err
}

// Device returns the device whose primary context the Driver holds.
func (d *Driver) Device() Device { return d.dev }
