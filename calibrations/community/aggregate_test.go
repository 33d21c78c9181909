package community

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// sortedStat is stat as it was, by sorting: the reference selection is
// held to.
func sortedStat(vs []float64) Stat {
	vs = slices.Clone(vs)
	slices.SortFunc(vs, cmp.Compare[float64])
	mid := func(vs []float64) float64 {
		if n := len(vs); n%2 == 1 {
			return vs[n/2]
		} else {
			return (vs[n/2-1] + vs[n/2]) / 2
		}
	}
	med := mid(vs)
	dev := make([]float64, len(vs))
	for i, v := range vs {
		dev[i] = math.Abs(v - med)
	}
	slices.SortFunc(dev, cmp.Compare[float64])
	return Stat{Median: med, MAD: mid(dev), Min: vs[0], Max: vs[len(vs)-1], Count: len(vs)}
}

// same reports whether two statistics are equal, a NaN equal to a NaN.
func same(a, b Stat) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return eq(a.Median, b.Median) && eq(a.MAD, b.MAD) && eq(a.Min, b.Min) && eq(a.Max, b.Max) && a.Count == b.Count
}

func checkStat(t *testing.T, vs []float64) {
	t.Helper()
	want := sortedStat(vs)
	got := stat(slices.Clone(vs), make([]float64, len(vs)), math.NaN())
	if !same(got, want) {
		t.Fatalf("stat(%v) = %+v, sorting gives %+v", vs, got, want)
	}
}

// TestStat holds stat's selection to sorting on the shapes a figure's
// values take: all equal, a few distinct values repeated, sorted either
// way, organ-pipe, and with NaNs, infinities and both zeros.
func TestStat(t *testing.T) {
	shapes := map[string]func(i, n int) float64{
		"equal":      func(i, n int) float64 { return 552402944 },
		"few":        func(i, n int) float64 { return float64(i % 3) },
		"ascending":  func(i, n int) float64 { return float64(i) },
		"descending": func(i, n int) float64 { return float64(n - i) },
		"organ":      func(i, n int) float64 { return float64(min(i, n-i)) },
		"spread":     func(i, n int) float64 { return float64((i * 7919) % 101) },
	}
	for name, f := range shapes {
		for _, n := range []int{1, 2, 3, 4, 5, 8, 31, 64, 1000, 4097} {
			vs := make([]float64, n)
			for i := range vs {
				vs[i] = f(i, n)
			}
			t.Run(name, func(t *testing.T) { checkStat(t, vs) })
		}
	}
	checkStat(t, []float64{math.NaN(), 1, math.Inf(-1), 2, math.Inf(1), math.Copysign(0, -1), 0, math.NaN()})
}

// FuzzStat holds stat to sorting on the float64s the input's bytes spell,
// eight at a time (every bit pattern).
func FuzzStat(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN())), 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		var vs []float64
		for ; len(b) >= 8; b = b[8:] {
			vs = append(vs, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
		if len(vs) > 0 {
			checkStat(t, vs)
		}
	})
}
