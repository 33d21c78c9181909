package web

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target the native server runs with
// (debug.SetGCPercent) unless the GOGC environment variable sets one. The
// server's live heap is small, tens of megabytes, so at Go's default of 100
// a stream of uploads had the collector running every few hundred
// milliseconds, its marking taking a share of the cores the requests
// queued for: on 2 cores, an open loop of 2,000 uploads/s measured p99
// 31–36 ms at 400 against 55–133 ms at 100, in turn (docs/benchmarks.md,
// session 9), for a heap that grows about four times larger between
// collections.
const GCPercent = 400

// TuneGC sets the garbage collector's target to GCPercent, unless GOGC is
// set in the environment, and returns a function that puts back the target
// it replaced. `vramplan serve` calls it at start, and the upload
// benchmarks, so that they measure the server as it runs.
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(old) }
}
