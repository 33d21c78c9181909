package cuda

// This file declares, in Go, the few driver types gpuagent passes by
// pointer. Their layouts are the LP64 layouts of cuda.h (CUDA 12.x–13.0);
// layout_test.go pins every size and offset, against the numbers and, on
// Linux with cgo, against the C declarations the shim is compiled with.

// A DevicePtr is a CUdeviceptr: a device virtual address.
type DevicePtr uint64

// A MemHandle is a CUmemGenericAllocationHandle: physical memory made by
// MemCreate.
type MemHandle uint64

// A Device is a CUdevice ordinal as the driver numbers it.
type Device int32

// MemLocation is CUmemLocation.
type MemLocation struct {
	Type int32 // CU_MEM_LOCATION_TYPE_*
	ID   int32 // device ordinal for MemLocationDevice
}

// MemAllocFlags is the allocFlags member of CUmemAllocationProp.
type MemAllocFlags struct {
	CompressionType      uint8
	GPUDirectRDMACapable uint8
	Usage                uint16
	Reserved             [4]uint8
}

// MemAllocationProp is CUmemAllocationProp.
type MemAllocationProp struct {
	Type                 int32 // CU_MEM_ALLOCATION_TYPE_*
	RequestedHandleTypes int32 // CU_MEM_HANDLE_TYPE_* bits
	Location             MemLocation
	Win32HandleMetaData  uintptr // always 0 on Linux
	AllocFlags           MemAllocFlags
}

// MemAccessDesc is CUmemAccessDesc.
type MemAccessDesc struct {
	Location MemLocation
	Flags    int32 // CU_MEM_ACCESS_FLAGS_PROT_*
}

// Enumerations, as cuda.h numbers them.
const (
	MemAllocationTypePinned   = 1
	MemLocationDevice         = 1
	MemHandleTypeNone         = 0
	MemHandleTypePOSIXFD      = 1
	MemAccessReadWrite        = 3
	MemGranularityMinimum     = 0
	MemGranularityRecommended = 1
	AttrSMCount               = 16
	AttrCCMajor               = 75
	AttrCCMinor               = 76
	AttrVMMSupported          = 102
	AttrPOSIXFDSupported      = 103
	eventDisableTiming        = 2
)

// DeviceProp returns the allocation properties of pinned device memory on
// dev, exportable as a POSIX fd when posixFD is set.
func DeviceProp(dev Device, posixFD bool) MemAllocationProp {
	p := MemAllocationProp{Type: MemAllocationTypePinned, Location: MemLocation{MemLocationDevice, int32(dev)}}
	if posixFD {
		p.RequestedHandleTypes = MemHandleTypePOSIXFD
	}
	return p
}

// ReadWrite returns the access descriptor that lets dev read and write.
func ReadWrite(dev Device) MemAccessDesc {
	return MemAccessDesc{Location: MemLocation{MemLocationDevice, int32(dev)}, Flags: MemAccessReadWrite}
}
