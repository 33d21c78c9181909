//go:build !linux

package gpuagenttest

import (
	"syscall"
	"testing"
)

// OpenFDs skips the test: counting descriptors needs /proc.
func OpenFDs(t testing.TB) int {
	t.Skip("counting open descriptors needs Linux's /proc")
	return 0
}

func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
