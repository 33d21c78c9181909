package refit

// This file is the refit's estimation, for any engine's constants: a
// constant is the median of what the runs imply (Median) or a line over a
// regressor (Line), fitted after two rejections, so that uploads cannot
// move a constant where no run of the engine would put it (#31 point 7: 40
// "accepted" observations with 3× the compute moved E2 from 16 to
// 8,798,425 bytes a token).
//
//  1. Plausibility: a sample implying a constant outside the constant's
//     Range is rejected. A Range is wide, an order of magnitude or more
//     around what the engine's source makes physical, and says so where it
//     is declared.
//  2. Outliers: a sample farther from the robust centre (the median, or
//     the Theil-Sen line: the median of the pairwise slopes) than
//     max(outlierMADs × 1.4826 × MAD, floorShare of the centre's size, its
//     own tolerance) is rejected, as community calibrations reject (the
//     same 3.5 MADs); a group needs minGroup samples for it.
//
// The kept samples are then fitted (the median; the weighted least-squares
// line), and a fit whose constants leave their Ranges keeps the old ones.
// Every rejection names its sample and why, so a refit says how many
// observations it left out. Honest majorities win: the rule bounds what a
// minority can do, and the server's hold rule (observation.Held) keeps the
// wildest uploads out before.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Range is the values a constant may plausibly take, in its own unit.
type Range struct{ Lo, Hi float64 }

// Holds reports whether v lies in r.
func (r Range) Holds(v float64) bool { return v >= r.Lo && v <= r.Hi }

// Sample is one run's reading of a rule: at X (the regressor, such as
// n_embd; unread by Median) the run implies the value Y, weighted W (1 when
// zero), within its own tolerance Tol (half its print unit, say), which no
// rejection reads as a departure.
type Sample struct {
	Name    string
	X, Y, W float64
	Tol     float64
}

// Rejection is a sample a fit left out, and why.
type Rejection struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Fit is a robust fit: the constants, the samples it used, the ones it
// rejected, and whether it kept the old constants (Kept: nothing was left
// to fit, or the fit left its Ranges; Why says which).
type Fit struct {
	Slope    float64     `json:"slope"`
	Value    float64     `json:"value"`
	Used     int         `json:"used"`
	Rejected []Rejection `json:"rejected,omitempty"`
	Kept     bool        `json:"kept"`
	Why      string      `json:"why,omitempty"`
}

// The outlier rule.
const (
	outlierMADs = 3.5  // MADs from the centre, as community.Summarize's
	floorShare  = 0.10 // a departure within 10 % of the centre is never an outlier
	minGroup    = 3    // fewer samples than this are not tested for outliers
)

// Median fits one constant in r, the median of the samples' Y; old is kept
// when nothing plausible is left.
func Median(s []Sample, r Range, old float64) Fit {
	var f Fit
	s = f.plausible(s, func(p *Sample) bool { return r.Holds(p.Y) }, r)
	centre := median(ys(s))
	s = f.outliers(s, func(p *Sample) float64 { return p.Y - centre }, centre)
	if len(s) == 0 {
		return f.keep(0, old, "no plausible run")
	}
	f.Used, f.Value = len(s), median(ys(s))
	return f
}

// Line fits Y = Slope·X + Value, each in its Range, to samples at X >= 0;
// old0 and old1 are kept when nothing plausible is left or the fit leaves
// its Ranges, and with fewer than two distinct X the slope stays old0.
func Line(s []Sample, slope, value Range, old0, old1 float64) Fit {
	var f Fit
	s = f.plausible(s, func(p *Sample) bool {
		return p.X >= 0 && p.Y >= slope.Lo*p.X+value.Lo && p.Y <= slope.Hi*p.X+value.Hi
	}, Range{})
	b := theilSen(s, old0)
	c := median(residuals(s, b, 0))
	s = f.outliers(s, func(p *Sample) float64 { return p.Y - b*p.X - c }, median(ys(s)))
	if len(s) == 0 {
		return f.keep(old0, old1, "no plausible run")
	}
	f.Used = len(s)
	f.Slope, f.Value = leastSquares(s, old0)
	if !slope.Holds(f.Slope) || !value.Holds(f.Value) {
		return f.keep(old0, old1, fmt.Sprintf("the fit (%.4g, %.4g) is outside [%g, %g] × [%g, %g]", f.Slope, f.Value, slope.Lo, slope.Hi, value.Lo, value.Hi))
	}
	return f
}

// keep sets the old constants and why they were kept.
func (f *Fit) keep(old0, old1 float64, why string) Fit {
	f.Slope, f.Value, f.Kept, f.Why = old0, old1, true, why
	return *f
}

// plausible returns the samples ok holds for, rejecting the others (r, when
// set, is named in the reason).
func (f *Fit) plausible(s []Sample, ok func(*Sample) bool, r Range) []Sample {
	out := make([]Sample, 0, len(s))
	for i := range s {
		if ok(&s[i]) {
			out = append(out, s[i])
			continue
		}
		why := "implies a constant outside its plausible range"
		if r != (Range{}) {
			why = fmt.Sprintf("implies %.4g, outside the plausible %g to %g", s[i].Y, r.Lo, r.Hi)
		}
		f.Rejected = append(f.Rejected, Rejection{Name: s[i].Name, Why: why})
	}
	return out
}

// outliers returns the samples whose departure lies within the outlier
// rule's bound around a centre of size centre, rejecting the others.
func (f *Fit) outliers(s []Sample, departure func(*Sample) float64, centre float64) []Sample {
	if len(s) < minGroup {
		return s
	}
	d := make([]float64, len(s))
	for i := range s {
		d[i] = departure(&s[i])
	}
	mid := median(d)
	abs := make([]float64, len(d))
	for i := range d {
		abs[i] = math.Abs(d[i] - mid)
	}
	bound := max(outlierMADs*1.4826*median(abs), floorShare*math.Abs(centre))
	out := make([]Sample, 0, len(s))
	for i := range s {
		if abs[i] <= max(bound, s[i].Tol) {
			out = append(out, s[i])
			continue
		}
		f.Rejected = append(f.Rejected, Rejection{Name: s[i].Name,
			Why: fmt.Sprintf("an outlier: %.4g from the others' centre, past %.4g", abs[i], max(bound, s[i].Tol))})
	}
	return out
}

// theilSen is the median of the slopes between samples of distinct X, or
// old when there are none.
func theilSen(s []Sample, old float64) float64 {
	var slopes []float64
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if dx := s[j].X - s[i].X; dx != 0 {
				slopes = append(slopes, (s[j].Y-s[i].Y)/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return old
	}
	return median(slopes)
}

// leastSquares is the weighted least-squares line through s; with fewer
// than two distinct X it keeps the slope b0 and fits the intercept alone.
func leastSquares(s []Sample, b0 float64) (float64, float64) {
	var sw, sx, sy, sxx, sxy float64
	for _, p := range s {
		w := p.W
		if w == 0 {
			w = 1
		}
		sw += w
		sx += w * p.X
		sy += w * p.Y
		sxx += w * p.X * p.X
		sxy += w * p.X * p.Y
	}
	d := sw*sxx - sx*sx
	if math.Abs(d) <= 1e-9*sw*sxx {
		return b0, (sy - b0*sx) / sw
	}
	b := (sw*sxy - sx*sy) / d
	return b, (sy - b*sx) / sw
}

func ys(s []Sample) []float64 {
	out := make([]float64, len(s))
	for i := range s {
		out[i] = s[i].Y
	}
	return out
}

func residuals(s []Sample, b, c float64) []float64 {
	out := make([]float64, len(s))
	for i := range s {
		out[i] = s[i].Y - b*s[i].X - c
	}
	return out
}

// median is the median of v (the mean of the middle two of an even count),
// 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.SortFunc(v, cmp.Compare)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + m) / 2
	}
	return m
}
