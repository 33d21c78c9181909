//go:build !unix

package web_test

import "time"

// cpuTime is zero where getrusage is missing: the benchmark then reports
// no CPU figure.
func cpuTime() time.Duration { return 0 }
