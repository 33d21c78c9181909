package web_test

import (
	"os"
	"syscall"
)

// datasync is what the store's syncer calls: fdatasync.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
