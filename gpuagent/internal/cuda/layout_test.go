package cuda

import (
	"testing"
	"unsafe"
)

// goLayout returns the sizes and offsets of the Go declarations.
func goLayout() map[string]uintptr {
	var p MemAllocationProp
	var a MemAccessDesc
	var l MemLocation
	return map[string]uintptr{
		"MemLocation":                            unsafe.Sizeof(l),
		"MemLocation.ID":                         unsafe.Offsetof(l.ID),
		"MemAllocationProp":                      unsafe.Sizeof(p),
		"MemAllocationProp.RequestedHandleTypes": unsafe.Offsetof(p.RequestedHandleTypes),
		"MemAllocationProp.Location":             unsafe.Offsetof(p.Location),
		"MemAllocationProp.Win32HandleMetaData":  unsafe.Offsetof(p.Win32HandleMetaData),
		"MemAllocationProp.AllocFlags":           unsafe.Offsetof(p.AllocFlags),
		"MemAllocFlags.Usage":                    unsafe.Offsetof(p.AllocFlags) + unsafe.Offsetof(p.AllocFlags.Usage),
		"MemAllocFlags.Reserved":                 unsafe.Offsetof(p.AllocFlags) + unsafe.Offsetof(p.AllocFlags.Reserved),
		"MemAccessDesc":                          unsafe.Sizeof(a),
		"MemAccessDesc.Flags":                    unsafe.Offsetof(a.Flags),
	}
}

// cudaH holds the LP64 layouts of cuda.h, CUDA 12.x–13.0
// (shared/notes/cuda.md).
var cudaH = map[string]uintptr{
	"MemLocation":                            8,
	"MemLocation.ID":                         4,
	"MemAllocationProp":                      32,
	"MemAllocationProp.RequestedHandleTypes": 4,
	"MemAllocationProp.Location":             8,
	"MemAllocationProp.Win32HandleMetaData":  16,
	"MemAllocationProp.AllocFlags":           24,
	"MemAllocFlags.Usage":                    26,
	"MemAllocFlags.Reserved":                 28,
	"MemAccessDesc":                          12,
	"MemAccessDesc.Flags":                    8,
}

func TestLayoutMatchesCudaH(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("layouts are pinned for LP64 only")
	}
	got := goLayout()
	for k, want := range cudaH {
		if got[k] != want {
			t.Errorf("Go %s = %d, want %d (cuda.h)", k, got[k], want)
		}
	}
	if len(got) != len(cudaH) {
		t.Errorf("Go layout has %d entries, cuda.h table %d", len(got), len(cudaH))
	}
}

func TestLayoutMatchesC(t *testing.T) {
	c := cLayout()
	if c == nil {
		t.Skip("no cgo: the C declarations are not compiled in this build")
	}
	for k, want := range cudaH {
		if c[k] != want {
			t.Errorf("C %s = %d, want %d (cuda.h)", k, c[k], want)
		}
	}
}
