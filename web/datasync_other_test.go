//go:build !linux

package web_test

import "os"

// datasync is what the store calls elsewhere: a full sync.
func datasync(f *os.File) error { return f.Sync() }
