// Package leaktest fails a test binary, under the invariants build tag,
// when an owned object was dropped without being released during its
// tests. Go has no destructors, so the leak reports of package leak come
// from the garbage collector; Main collects until they stop arriving.
//
//	func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }
package leaktest

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// Main runs the tests, then, with invariants enabled, collects garbage
// until no new leak report arrives and returns 1 if any report reached
// the default handler. Tests that leak on purpose install their own
// handler (leak.SetHandler) and do not count.
func Main(m *testing.M) int {
	code := m.Run()
	if !invariants.Enabled || code != 0 {
		return code
	}
	n := settle()
	if n > 0 {
		fmt.Fprintf(os.Stderr, "leaktest: %d owned objects were never released (see the reports above)\n", n)
		return 1
	}
	return 0
}

// settle runs the collector until two rounds in a row add no report (the
// cleanups run on their own goroutine) and returns the unexpected count.
func settle() int64 {
	last := int64(-1)
	for quiet := 0; quiet < 2; {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		n := leak.Count()
		if n == last {
			quiet++
		} else {
			quiet = 0
		}
		last = n
	}
	return leak.Unexpected()
}
