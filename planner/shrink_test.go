package planner

import "testing"

func TestShrinkPolicy(t *testing.T) {
	h200 := Calibration{VMM: VMM{
		Commit:   []Latency{{Chunk: 2 * MiB, P50us: 36.4, P90us: 40.8}, {Chunk: 64 * MiB, P50us: 45.1, P90us: 55.9}, {Chunk: 256 * MiB, P50us: 70}},
		Decommit: []Latency{{Chunk: 2 * MiB, P50us: 30.5, P90us: 33.4}, {Chunk: 64 * MiB, P50us: 58.4, P90us: 69}, {Chunk: 256 * MiB, P50us: 177.9}},
	}}
	for _, c := range []struct {
		cal    Calibration
		chunk  Bytes
		idleMs int64
		c, d   float64
	}{
		{h200, 64 * MiB, 125, 55.9, 69},             // p90 of the 64 MiB row
		{h200, 48 * MiB, 125, 55.9, 69},             // the smallest row at least 48 MiB
		{h200, 1024 * MiB, 248, 70, 177.9},          // the largest row, p50 without p90
		{h200, 2 * MiB, 100, 40.8, 33.4},            // 74.2 ms floored at 100 ms
		{Calibration{}, 64 * MiB, 3700, 1200, 2500}, // the seed's figures
	} {
		s := ShrinkPolicy(&c.cal, c.chunk)
		if s.IdleMs != c.idleMs || s.CommitUs != c.c || s.DecommitUs != c.d || s.IdleSteps != 64 || s.KeepChunks != 1 {
			t.Errorf("ShrinkPolicy(chunk %v) = %+v, want idle %d ms from commit %v µs, decommit %v µs", c.chunk, s, c.idleMs, c.c, c.d)
		}
	}
}
