package web_test

import (
	"runtime/metrics"
	"testing"
	"time"
)

// schedLatencies reads the runtime's histogram of the time goroutines
// spent runnable before they ran.
func schedLatencies() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// reportSched reports the p50 and p99 of the time goroutines waited for a
// core between two readings of schedLatencies: on 2 cores shared by the
// server, its clients and the store's goroutines, the part of an upload's
// latency that is queueing for CPU.
func reportSched(b *testing.B, h0, h1 *metrics.Float64Histogram) {
	if h0 == nil || h1 == nil || len(h0.Counts) != len(h1.Counts) {
		return
	}
	counts := make([]uint64, len(h1.Counts))
	var total uint64
	for i := range counts {
		counts[i] = h1.Counts[i] - h0.Counts[i]
		total += counts[i]
	}
	if total == 0 {
		return
	}
	at := func(q float64) time.Duration {
		want, seen := uint64(q*float64(total)), uint64(0)
		for i, n := range counts {
			if seen += n; seen > want {
				return time.Duration(h1.Buckets[i+1] * float64(time.Second)) // the bucket's upper bound
			}
		}
		return 0
	}
	b.ReportMetric(ms(at(0.50)), "sched-p50-ms")
	b.ReportMetric(ms(at(0.99)), "sched-p99-ms")
	b.ReportMetric(ms(at(0.999)), "sched-p999-ms")
}
