//go:build !linux

package web_test

import "os"

// datasync is a full sync where fdatasync is not to be had.
func datasync(f *os.File) error { return f.Sync() }
