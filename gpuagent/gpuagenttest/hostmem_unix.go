//go:build unix

package gpuagenttest

// The fake's device memory lives outside the Go heap. A fake device of
// many gigabytes in the heap would raise the collector's heap goal by as
// much, so a serving process would run for gigabytes of garbage between
// collections, touching fresh pages all the while; mapped memory is also
// never scanned.

import (
	"fmt"
	"syscall"
)

// hostAlloc returns n zeroed bytes mapped outside the Go heap.
func hostAlloc(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		panic(fmt.Sprintf("gpuagenttest: mapping %d bytes of fake device memory: %v", n, err))
	}
	return b
}

// hostFree unmaps memory hostAlloc returned. Nothing may use it after.
func hostFree(b []byte) { syscall.Munmap(b) }
