package planner

// This file is when a VMM-backed KV pool gives memory back while serving
// (seed A3.1: decommit only after a fence, with generous hysteresis,
// because flapping between commit and decommit costs more than the memory
// it returns).

import "math"

// ShrinkPlan is the KV pool's hysteresis. A chunk of the pool whose blocks
// have all been free for IdleSteps engine steps and IdleMs milliseconds
// (or for IdleMs with no step at all: the load stopped) is decommitted,
// after every process that maps the pool has unmapped it, keeping
// KeepChunks idle chunks committed above the ones in use.
//
// IdleMs is derived from the calibration: 1000 times what decommitting and
// re-committing one chunk cost (p90 when measured, p50 otherwise), so a
// chunk flapping as fast as the hysteresis lets it spends at most 0.1 % of
// the time in the driver; at least 100 ms and at most one minute.
type ShrinkPlan struct {
	CommitUs   float64 `json:"chunk_commit_us"`   // one chunk's commit, as calibrated
	DecommitUs float64 `json:"chunk_decommit_us"` // one chunk's decommit, as calibrated
	IdleMs     int64   `json:"idle_ms"`
	IdleSteps  int     `json:"idle_steps"`
	KeepChunks int     `json:"keep_chunks"`
}

// Shrink defaults: the seed's RTX 5090 figures for a calibration without
// VMM latencies, and the step count the seed calls generous (growth comes
// every few hundred steps).
const (
	seedCommitUs     = 1200
	seedDecommitUs   = 2500
	shrinkIdleSteps  = 64
	shrinkKeepChunks = 1
)

// ShrinkPolicy returns the hysteresis of a KV pool committed in chunks of
// chunk bytes on the calibrated device.
func ShrinkPolicy(c *Calibration, chunk Bytes) ShrinkPlan {
	s := ShrinkPlan{CommitUs: latencyFor(c.VMM.Commit, chunk), DecommitUs: latencyFor(c.VMM.Decommit, chunk),
		IdleSteps: shrinkIdleSteps, KeepChunks: shrinkKeepChunks}
	if s.CommitUs == 0 || s.DecommitUs == 0 {
		s.CommitUs, s.DecommitUs = seedCommitUs, seedDecommitUs
	}
	ms := math.Ceil(s.CommitUs + s.DecommitUs) // 1000 × (c+d) µs, in ms
	s.IdleMs = int64(min(max(ms, 100), 60_000))
	return s
}

// latencyFor returns the cost of the smallest measured chunk at least
// chunk bytes, or of the largest measured, in µs; 0 when none is.
func latencyFor(ls []Latency, chunk Bytes) float64 {
	best := -1
	for i, l := range ls {
		if best < 0 || better(l.Chunk, ls[best].Chunk, chunk) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	l := ls[best]
	for _, v := range []float64{l.P90us, l.P50us, l.MeanUs} {
		if v > 0 {
			return v
		}
	}
	return 0
}

// better reports whether a measured chunk of a bytes describes a chunk of
// want bytes better than one of b: the smallest at least want, else the
// largest.
func better(a, b, want Bytes) bool {
	if (a >= want) != (b >= want) {
		return a >= want
	}
	if a >= want {
		return a < b
	}
	return a > b
}
