package community

import (
	"fmt"
	"testing"
)

// BenchmarkSummarize summarizes a group of n uploads of the H200's 40
// figures, each figure a few distinct values, the context spread over a
// few percent: a busy group, as the server's background refresh re-reads
// it.
func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		ms := make([]Member, n)
		for i := range ms {
			f := make(map[string]float64, 40)
			for j := range 39 {
				f[fmt.Sprintf("vmm.commit.%d.p50_us", j)] = float64(30 + (i*7+j)%11)
			}
			f[FigContext] = float64(552402944 + (i%50)*(1<<20))
			ms[i] = Member{ID: fmt.Sprint(i), Figures: f}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				Summarize("g", ms)
			}
		})
	}
}
