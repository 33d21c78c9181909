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

// hostAlloc returns n zeroed bytes mapped outside the Go heap, or an
// error when the host will not map them.
func hostAlloc(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of host memory for the fake device: %w", n, err)
	}
	return b, nil
}

// hostFree unmaps memory hostAlloc returned. Nothing may use it after.
func hostFree(b []byte) { syscall.Munmap(b) }
