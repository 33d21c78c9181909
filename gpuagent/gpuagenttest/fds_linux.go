//go:build linux

package gpuagenttest

import (
	"os"
	"syscall"
	"testing"
)

// OpenFDs returns how many file descriptors this process holds open.
func OpenFDs(t testing.TB) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es) - 1 // the directory's own descriptor
}

func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
