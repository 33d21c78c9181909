package refit

import (
	"fmt"
	"testing"
)

func samples(ys ...float64) []Sample {
	s := make([]Sample, len(ys))
	for i, y := range ys {
		s[i] = Sample{Name: fmt.Sprint("s", i), Y: y}
	}
	return s
}

// TestMedian: a constant is the median of the plausible runs after the
// outliers; a minority however far off does not move it, and with nothing
// plausible the old constant stays.
func TestMedian(t *testing.T) {
	r := Range{Lo: 0, Hi: 100}
	for _, tc := range []struct {
		ys       []float64
		want     float64
		rejected int
		kept     bool
	}{
		{[]float64{10, 11, 12}, 11, 0, false},
		{[]float64{10, 11, 12, 13, 90, 95}, 11.5, 2, false}, // two outliers of six
		{[]float64{10, 11, 12, -5, 1e9}, 11, 2, false},      // two implausible
		{[]float64{10, 10.5, 11, 11.5}, 10.75, 0, false},    // within 10 % of the centre: none rejected
		{[]float64{500, 600}, 7, 2, true},                   // nothing plausible: the old 7
		{nil, 7, 0, true},
	} {
		f := Median(samples(tc.ys...), r, 7)
		if f.Value != tc.want || len(f.Rejected) != tc.rejected || f.Kept != tc.kept || f.Used != len(tc.ys)-tc.rejected {
			t.Errorf("Median(%v) = %+v, want %v with %d rejected (kept %v)", tc.ys, f, tc.want, tc.rejected, tc.kept)
		}
	}
}

// TestLine: the line through the runs, its outliers rejected by their
// distance from the Theil-Sen line; a fit outside its ranges keeps the old
// constants.
func TestLine(t *testing.T) {
	slope, value := Range{Lo: 0, Hi: 64}, Range{Lo: -1000, Hi: 1000}
	var s []Sample
	for _, x := range []float64{1024, 2048, 4096, 5120} {
		s = append(s, Sample{Name: fmt.Sprint("x", x), X: x, Y: 10*x + 16})
	}
	if f := Line(s, slope, value, 1, 1); f.Slope != 10 || f.Value != 16 || f.Used != 4 || len(f.Rejected) != 0 {
		t.Errorf("Line(exact) = %+v, want 10, 16", f)
	}
	poisoned := append(append([]Sample(nil), s...), Sample{Name: "far", X: 2048, Y: 3 * (10*2048 + 16)},
		Sample{Name: "implausible", X: 4096, Y: 1e9})
	if f := Line(poisoned, slope, value, 1, 1); f.Slope != 10 || f.Value != 16 || len(f.Rejected) != 2 {
		t.Errorf("Line(poisoned) = %+v, want 10, 16 with 2 rejected", f)
	}
	one := []Sample{{X: 4096, Y: 10*4096 + 20}, {X: 4096, Y: 10*4096 + 12}}
	if f := Line(one, slope, value, 10, 0); f.Slope != 10 || f.Value != 16 {
		t.Errorf("Line(one x) = %+v, want the old slope 10 and the intercept 16", f)
	}
	steep := []Sample{{X: 1, Y: 100}, {X: 2, Y: 200}}
	if f := Line(steep, Range{Lo: 0, Hi: 64}, Range{Lo: -1000, Hi: 1000}, 10, 16); !f.Kept || f.Slope != 10 || f.Value != 16 {
		t.Errorf("Line(slope 100 in [0, 64]) = %+v, want the old constants kept", f)
	}
}
