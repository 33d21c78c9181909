//go:build linux && cgo

package cuda

// This file is the cgo half of the package: it dlopens libcuda.so.1,
// resolves the versioned entry points by name and calls them through thin
// C shims whose prototypes are copied from cuda.h. Nothing else in gpuagent
// uses cgo.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUevent;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;

typedef struct { int type; int id; } CUmemLocation;
typedef struct {
	unsigned char compressionType;
	unsigned char gpuDirectRDMACapable;
	unsigned short usage;
	unsigned char reserved[4];
} CUmemAllocFlags;
typedef struct {
	int type;
	int requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	CUmemAllocFlags allocFlags;
} CUmemAllocationProp;
typedef struct { CUmemLocation location; int flags; } CUmemAccessDesc;

// vp_open loads lib; it returns NULL and leaves the reason in *err.
static void *vp_open(const char *lib, int global, const char **err) {
	void *h = dlopen(lib, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
	if (!h) *err = dlerror();
	return h;
}

// vp_sym resolves name in h, clearing dlerror first so a NULL symbol and a
// failed lookup can be told apart.
static void *vp_sym(void *h, const char *name) {
	dlerror();
	void *p = dlsym(h, name);
	if (dlerror() != NULL) return NULL;
	return p;
}

#define F(ret, ...) ((ret (*)(__VA_ARGS__))f)
static CUresult vp_init(void *f, unsigned flags) { return F(CUresult, unsigned)(flags); }
static CUresult vp_int_out(void *f, int *out) { return F(CUresult, int *)(out); }
static CUresult vp_device_get(void *f, CUdevice *d, int ord) { return F(CUresult, CUdevice *, int)(d, ord); }
static CUresult vp_device_name(void *f, char *buf, int n, CUdevice d) { return F(CUresult, char *, int, CUdevice)(buf, n, d); }
static CUresult vp_total_mem(void *f, size_t *n, CUdevice d) { return F(CUresult, size_t *, CUdevice)(n, d); }
static CUresult vp_attr(void *f, int *v, int attr, CUdevice d) { return F(CUresult, int *, int, CUdevice)(v, attr, d); }
static CUresult vp_ctx_retain(void *f, CUcontext *c, CUdevice d) { return F(CUresult, CUcontext *, CUdevice)(c, d); }
static CUresult vp_device_call(void *f, CUdevice d) { return F(CUresult, CUdevice)(d); }
static CUresult vp_ptr_call(void *f, uintptr_t p) { return F(CUresult, void *)((void *)p); }
static CUresult vp_void_call(void *f) { return F(CUresult, void)(); }
static CUresult vp_mem_info(void *f, size_t *fr, size_t *tot) { return F(CUresult, size_t *, size_t *)(fr, tot); }
static CUresult vp_mem_alloc(void *f, CUdeviceptr *p, size_t n) { return F(CUresult, CUdeviceptr *, size_t)(p, n); }
static CUresult vp_mem_free(void *f, CUdeviceptr p) { return F(CUresult, CUdeviceptr)(p); }
static CUresult vp_memset(void *f, CUdeviceptr p, unsigned char v, size_t n) { return F(CUresult, CUdeviceptr, unsigned char, size_t)(p, v, n); }
static CUresult vp_htod(void *f, CUdeviceptr d, const void *s, size_t n) { return F(CUresult, CUdeviceptr, const void *, size_t)(d, s, n); }
static CUresult vp_dtoh(void *f, void *d, CUdeviceptr s, size_t n) { return F(CUresult, void *, CUdeviceptr, size_t)(d, s, n); }
static CUresult vp_reserve(void *f, CUdeviceptr *p, size_t size, size_t align) {
	return F(CUresult, CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long)(p, size, align, 0, 0);
}
static CUresult vp_addr_free(void *f, CUdeviceptr p, size_t size) { return F(CUresult, CUdeviceptr, size_t)(p, size); }
static CUresult vp_create(void *f, CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop) {
	return F(CUresult, CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long)(h, size, prop, 0);
}
static CUresult vp_release(void *f, CUmemGenericAllocationHandle h) { return F(CUresult, CUmemGenericAllocationHandle)(h); }
static CUresult vp_map(void *f, CUdeviceptr p, size_t size, CUmemGenericAllocationHandle h) {
	return F(CUresult, CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long)(p, size, 0, h, 0);
}
static CUresult vp_unmap(void *f, CUdeviceptr p, size_t size) { return F(CUresult, CUdeviceptr, size_t)(p, size); }
static CUresult vp_access(void *f, CUdeviceptr p, size_t size, const CUmemAccessDesc *d) {
	return F(CUresult, CUdeviceptr, size_t, const CUmemAccessDesc *, size_t)(p, size, d, 1);
}
static CUresult vp_gran(void *f, size_t *g, const CUmemAllocationProp *prop, int opt) {
	return F(CUresult, size_t *, const CUmemAllocationProp *, int)(g, prop, opt);
}
static CUresult vp_export_fd(void *f, int *fd, CUmemGenericAllocationHandle h) {
	return F(CUresult, void *, CUmemGenericAllocationHandle, int, unsigned long long)(fd, h, 1, 0);
}
static CUresult vp_import_fd(void *f, CUmemGenericAllocationHandle *h, int fd) {
	return F(CUresult, CUmemGenericAllocationHandle *, void *, int)(h, (void *)(uintptr_t)fd, 1);
}
static CUresult vp_event_create(void *f, CUevent *e, unsigned flags) { return F(CUresult, CUevent *, unsigned)(e, flags); }
static CUresult vp_event_record(void *f, uintptr_t e) { return F(CUresult, CUevent, CUstream)((CUevent)e, (CUstream)0); }
#undef F
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// driverSymbols lists the entry points resolved from libcuda.so.1, with
// their explicit versions: the unsuffixed names of the _v2 functions are
// the CUDA 3.x ABI.
var driverSymbols = []string{
	"cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName",
	"cuDeviceTotalMem_v2", "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain",
	"cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxSynchronize", "cuMemGetInfo_v2",
	"cuMemAlloc_v2", "cuMemFree_v2", "cuMemsetD8_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
	"cuMemAddressReserve", "cuMemAddressFree", "cuMemCreate", "cuMemRelease", "cuMemMap",
	"cuMemUnmap", "cuMemSetAccess", "cuMemGetAllocationGranularity",
	"cuMemExportToShareableHandle", "cuMemImportFromShareableHandle", "cuEventCreate", "cuEventRecord", "cuEventSynchronize",
	"cuEventDestroy_v2",
}

var (
	driverOnce sync.Once
	driverShim *shim
	driverErr  error
)

// loadDriver loads libcuda.so.1 once per process and runs cuInit.
func loadDriver() (*shim, error) {
	driverOnce.Do(func() { driverShim, driverErr = openDriver() })
	return driverShim, driverErr
}

// library is a dlopened shared object and its resolved symbols, keyed by
// the first name dlopen was asked for.
type library map[string]unsafe.Pointer

func dlopen(name string, global bool, symbols []string) (library, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var cerr *C.char
	g := C.int(0)
	if global {
		g = 1
	}
	h := C.vp_open(cname, g, &cerr)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", name, C.GoString(cerr))
	}
	lib := library{}
	for _, s := range symbols {
		p := sym(h, s)
		if p == nil {
			return nil, fmt.Errorf("dlsym %s in %s: not found", s, name)
		}
		lib[strings.Split(s, "|")[0]] = p
	}
	return lib, nil
}

// sym resolves the first of the '|'-separated names that h exports.
func sym(h unsafe.Pointer, names string) unsafe.Pointer {
	for _, n := range strings.Split(names, "|") {
		cs := C.CString(n)
		p := C.vp_sym(h, cs)
		C.free(unsafe.Pointer(cs))
		if p != nil {
			return p
		}
	}
	return nil
}

func openDriver() (*shim, error) {
	lib, err := dlopen("libcuda.so.1", false, driverSymbols)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	if code := C.vp_init(lib["cuInit"], 0); code != 0 {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, check("cuInit", int32(code)))
	}
	s := &shim{}
	lib.fillDevice(s)
	lib.fillMemory(s)
	lib.fillVMM(s)
	return s, nil
}

func cu(code C.CUresult) int32 { return int32(code) }

func (l library) fillDevice(s *shim) {
	s.driverGetVersion = func() (int, int32) {
		var v C.int
		code := C.vp_int_out(l["cuDriverGetVersion"], &v)
		return int(v), cu(code)
	}
	s.deviceGetCount = func() (int, int32) {
		var v C.int
		code := C.vp_int_out(l["cuDeviceGetCount"], &v)
		return int(v), cu(code)
	}
	s.deviceGet = func(ord int) (Device, int32) {
		var d C.CUdevice
		code := C.vp_device_get(l["cuDeviceGet"], &d, C.int(ord))
		return Device(d), cu(code)
	}
	s.deviceGetName = func(d Device) (string, int32) {
		var buf [256]C.char
		code := C.vp_device_name(l["cuDeviceGetName"], &buf[0], C.int(len(buf)), C.CUdevice(d))
		return C.GoString(&buf[0]), cu(code)
	}
	s.deviceTotalMem = func(d Device) (uint64, int32) {
		var n C.size_t
		code := C.vp_total_mem(l["cuDeviceTotalMem_v2"], &n, C.CUdevice(d))
		return uint64(n), cu(code)
	}
	s.deviceGetAttr = func(attr int, d Device) (int, int32) {
		var v C.int
		code := C.vp_attr(l["cuDeviceGetAttribute"], &v, C.int(attr), C.CUdevice(d))
		return int(v), cu(code)
	}
	s.primaryCtxRetain = func(d Device) (uintptr, int32) {
		var c C.CUcontext
		code := C.vp_ctx_retain(l["cuDevicePrimaryCtxRetain"], &c, C.CUdevice(d))
		return uintptr(c), cu(code)
	}
	s.primaryCtxRelease = func(d Device) int32 {
		return cu(C.vp_device_call(l["cuDevicePrimaryCtxRelease_v2"], C.CUdevice(d)))
	}
	s.ctxSetCurrent = func(c uintptr) int32 { return cu(C.vp_ptr_call(l["cuCtxSetCurrent"], C.uintptr_t(c))) }
	s.ctxSynchronize = func() int32 { return cu(C.vp_void_call(l["cuCtxSynchronize"])) }
	s.eventCreate = func() (uintptr, int32) {
		var e C.CUevent
		code := C.vp_event_create(l["cuEventCreate"], &e, eventDisableTiming)
		return uintptr(e), cu(code)
	}
	s.eventRecord = func(e uintptr) int32 { return cu(C.vp_event_record(l["cuEventRecord"], C.uintptr_t(e))) }
	s.eventSynchronize = func(e uintptr) int32 { return cu(C.vp_ptr_call(l["cuEventSynchronize"], C.uintptr_t(e))) }
	s.eventDestroy = func(e uintptr) int32 { return cu(C.vp_ptr_call(l["cuEventDestroy_v2"], C.uintptr_t(e))) }
}

func (l library) fillMemory(s *shim) {
	s.memGetInfo = func() (uint64, uint64, int32) {
		var free, total C.size_t
		code := C.vp_mem_info(l["cuMemGetInfo_v2"], &free, &total)
		return uint64(free), uint64(total), cu(code)
	}
	s.memAlloc = func(n uint64) (DevicePtr, int32) {
		var p C.CUdeviceptr
		code := C.vp_mem_alloc(l["cuMemAlloc_v2"], &p, C.size_t(n))
		return DevicePtr(p), cu(code)
	}
	s.memFree = func(p DevicePtr) int32 { return cu(C.vp_mem_free(l["cuMemFree_v2"], C.CUdeviceptr(p))) }
	s.memsetD8 = func(p DevicePtr, v byte, n uint64) int32 {
		return cu(C.vp_memset(l["cuMemsetD8_v2"], C.CUdeviceptr(p), C.uchar(v), C.size_t(n)))
	}
	s.memcpyHtoD = func(dst DevicePtr, src unsafe.Pointer, n uint64) int32 {
		return cu(C.vp_htod(l["cuMemcpyHtoD_v2"], C.CUdeviceptr(dst), src, C.size_t(n)))
	}
	s.memcpyDtoH = func(dst unsafe.Pointer, src DevicePtr, n uint64) int32 {
		return cu(C.vp_dtoh(l["cuMemcpyDtoH_v2"], dst, C.CUdeviceptr(src), C.size_t(n)))
	}
}

func (l library) fillVMM(s *shim) {
	s.addressReserve = func(size, align uint64) (DevicePtr, int32) {
		var p C.CUdeviceptr
		code := C.vp_reserve(l["cuMemAddressReserve"], &p, C.size_t(size), C.size_t(align))
		return DevicePtr(p), cu(code)
	}
	s.addressFree = func(p DevicePtr, size uint64) int32 {
		return cu(C.vp_addr_free(l["cuMemAddressFree"], C.CUdeviceptr(p), C.size_t(size)))
	}
	s.memCreate = func(size uint64, prop *MemAllocationProp) (MemHandle, int32) {
		var h C.CUmemGenericAllocationHandle
		code := C.vp_create(l["cuMemCreate"], &h, C.size_t(size), (*C.CUmemAllocationProp)(unsafe.Pointer(prop)))
		return MemHandle(h), cu(code)
	}
	s.memRelease = func(h MemHandle) int32 {
		return cu(C.vp_release(l["cuMemRelease"], C.CUmemGenericAllocationHandle(h)))
	}
	s.memMap = func(p DevicePtr, size uint64, h MemHandle) int32 {
		return cu(C.vp_map(l["cuMemMap"], C.CUdeviceptr(p), C.size_t(size), C.CUmemGenericAllocationHandle(h)))
	}
	s.memUnmap = func(p DevicePtr, size uint64) int32 {
		return cu(C.vp_unmap(l["cuMemUnmap"], C.CUdeviceptr(p), C.size_t(size)))
	}
	s.memSetAccess = func(p DevicePtr, size uint64, d *MemAccessDesc) int32 {
		return cu(C.vp_access(l["cuMemSetAccess"], C.CUdeviceptr(p), C.size_t(size), (*C.CUmemAccessDesc)(unsafe.Pointer(d))))
	}
	s.granularity = func(prop *MemAllocationProp, opt int) (uint64, int32) {
		var g C.size_t
		code := C.vp_gran(l["cuMemGetAllocationGranularity"], &g, (*C.CUmemAllocationProp)(unsafe.Pointer(prop)), C.int(opt))
		return uint64(g), cu(code)
	}
	s.exportFD = func(h MemHandle) (int, int32) {
		var fd C.int
		code := C.vp_export_fd(l["cuMemExportToShareableHandle"], &fd, C.CUmemGenericAllocationHandle(h))
		return int(fd), cu(code)
	}
	s.importFD = func(fd int) (MemHandle, int32) {
		var h C.CUmemGenericAllocationHandle
		code := C.vp_import_fd(l["cuMemImportFromShareableHandle"], &h, C.int(fd))
		return MemHandle(h), cu(code)
	}
}

// cLayout returns the sizes and offsets of the C declarations this file is
// compiled with, keyed as layout_test.go keys the Go ones.
func cLayout() map[string]uintptr {
	var p C.CUmemAllocationProp
	var a C.CUmemAccessDesc
	var l C.CUmemLocation
	return map[string]uintptr{
		"MemLocation":                            unsafe.Sizeof(l),
		"MemLocation.ID":                         unsafe.Offsetof(l.id),
		"MemAllocationProp":                      unsafe.Sizeof(p),
		"MemAllocationProp.RequestedHandleTypes": unsafe.Offsetof(p.requestedHandleTypes),
		"MemAllocationProp.Location":             unsafe.Offsetof(p.location),
		"MemAllocationProp.Win32HandleMetaData":  unsafe.Offsetof(p.win32HandleMetaData),
		"MemAllocationProp.AllocFlags":           unsafe.Offsetof(p.allocFlags),
		"MemAllocFlags.Usage":                    unsafe.Offsetof(p.allocFlags) + unsafe.Offsetof(p.allocFlags.usage),
		"MemAllocFlags.Reserved":                 unsafe.Offsetof(p.allocFlags) + unsafe.Offsetof(p.allocFlags.reserved),
		"MemAccessDesc":                          unsafe.Sizeof(a),
		"MemAccessDesc.Flags":                    unsafe.Offsetof(a.flags),
	}
}
