//go:build !linux

package gpuagenttest

// This file exists for platforms without memory files: the fake creates
// no exportable handles there, as a device without POSIX-fd export does
// not, and the Fake is no backend.Sharer.

import "github.com/vramplan/vramplan/gpuagent/backend"

func freeShared(*handle) {}

// MemCreateExportable fails: there are no memory files to back it.
func (d *Device) MemCreateExportable(n backend.Bytes) (uint64, error) {
	return 0, fail("cuMemCreate", n, backend.ErrNotSupported)
}
