//go:build linux

package gpuagenttest

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// HostAvailable returns the host memory the kernel says a new workload
// can take without swapping (MemAvailable in /proc/meminfo); ok is false
// when it cannot tell.
func HostAvailable() (n backend.Bytes, ok bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, found := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !found {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil || kib < 0 {
			return 0, false
		}
		return backend.Bytes(kib) * backend.KiB, true
	}
	return 0, false
}
