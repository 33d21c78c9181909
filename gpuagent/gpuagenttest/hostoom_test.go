//go:build linux

package gpuagenttest_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

// TestHostOutOfMemory: a fake device larger than its host answers an
// allocation the host cannot map with OUT_OF_MEMORY, as the driver would,
// rather than panicking. It needs the kernel to refuse a mapping larger
// than its memory (overcommit heuristic or strict).
func TestHostOutOfMemory(t *testing.T) {
	mode, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	if m := strings.TrimSpace(string(mode)); err != nil || (m != "0" && m != "2") {
		t.Skipf("overcommit_memory %q: the kernel maps anything", m)
	}
	avail, ok := gpuagenttest.HostAvailable()
	if !ok || avail <= 0 {
		t.Fatalf("HostAvailable = %v, %v on Linux", avail, ok)
	}
	d := gpuagenttest.NewDevice(1<<50, 2*backend.MiB, 0)
	_, err = d.MemAlloc(1<<49, 0)
	if !errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("MemAlloc(512 TiB) on a %v host = %v, want out of memory", avail, err)
	}
	_, err = d.MemCreate(1 << 49)
	if !errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("MemCreate(512 TiB) = %v, want out of memory", err)
	}
	if a, err := d.MemAlloc(backend.MiB, 0); err != nil {
		t.Errorf("MemAlloc(1 MiB) after the refusals = %v", err)
	} else {
		d.MemFree(a)
	}
}
