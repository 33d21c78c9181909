package web_test

import (
	"os"
	"syscall"
)

// datasync flushes f's data with fdatasync: the disk's own floor.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
