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
