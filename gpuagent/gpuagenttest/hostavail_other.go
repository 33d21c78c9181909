//go:build !linux

package gpuagenttest

import "github.com/vramplan/vramplan/gpuagent/backend"

// HostAvailable reports false: only Linux says how much host memory is
// available (/proc/meminfo), so elsewhere the fake's load is not checked
// against it and an over-large plan fails at its first allocation.
func HostAvailable() (backend.Bytes, bool) { return 0, false }
