//go:build !linux

package sqlite

import "os"

// datasync is fsync where fdatasync is not to be had. The syncer runs only
// on Linux (pipelined), so nothing calls it; it exists for the build.
func datasync(f *os.File) error { return f.Sync() }

// writeBack does nothing where sync_file_range is not to be had; the
// checkpointer calls it only on Linux (pipelined).
func writeBack(f *os.File) error { return nil }
