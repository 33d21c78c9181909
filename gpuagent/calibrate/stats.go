package calibrate

import (
	"math"
	"slices"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

// latency summarizes samples in microseconds, rounded to 0.1 µs.
func latency(chunk backend.Bytes, us []float64) Latency {
	s := slices.Clone(us)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	return Latency{Chunk: planner.Bytes(chunk), P50us: round1(quantile(s, 0.5)), P90us: round1(quantile(s, 0.9)), MeanUs: round1(sum / float64(len(s)))}
}

// quantile returns the q-quantile of sorted s by the nearest-rank method.
func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// medianBytes returns the median of xs (the lower middle for an even
// count).
func medianBytes(xs []backend.Bytes) backend.Bytes {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// spread returns (max − min) / median of xs, the run-to-run variation.
func spread(xs []backend.Bytes) float64 {
	m := medianBytes(xs)
	if m == 0 {
		return 0
	}
	return float64(slices.Max(xs)-slices.Min(xs)) / float64(m)
}
