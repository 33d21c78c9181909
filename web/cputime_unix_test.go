//go:build unix

package web_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used, user and system:
// a benchmark's figure that a loaded machine's other processes do not
// change, as they change its wall-clock rate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// diskWritten returns the bytes this process has sent to the disk
// (getrusage's block outputs, 512 bytes each on Linux, counted when a
// page is dirtied): the store's log and database writes, a figure that
// does not depend on the machine's load.
func diskWritten() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Oublock * 512
}
