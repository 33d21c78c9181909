package community

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/vramplan/vramplan/planner"
)

// The outlier rule. In a group of at least MinGroup uploads, an upload is
// an outlier when one of its Charged figures lies farther from the group's
// median than the bound: the largest of OutlierMADs robust standard
// deviations (1.4826 × MAD), OutlierShare of the median, and OutlierFloor
// bytes. The floor and the share keep a group of identical measurements
// (MAD 0) from casting out an upload a few MiB off. Outliers are listed and
// kept, but the statistics are computed without them.
const (
	MinGroup     = 3
	OutlierMADs  = 3.5
	OutlierShare = 0.10
	OutlierFloor = float64(16 * planner.MiB)
)

// Stat summarizes one figure over a group's uploads.
type Stat struct {
	Median float64 `json:"median"`
	MAD    float64 `json:"mad"` // median absolute deviation from Median
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Count  int     `json:"count"` // uploads that measured it
}

// Member is one accepted upload of a group, as aggregation sees it.
type Member struct {
	ID      string
	Figures map[string]float64
}

// Summary is a group's aggregate.
type Summary struct {
	Group string `json:"group"`
	// Count is the uploads aggregated, outliers left out.
	Count int `json:"count"`
	// Outliers are the ids of the uploads held out, with the reason.
	Outliers map[string]string `json:"outliers,omitempty"`
	Figures  map[string]Stat   `json:"figures"`
}

// Summarize aggregates a group's members: the statistics of every figure,
// over the members that are not outliers.
func Summarize(group string, members []Member) Summary {
	s := Summary{Group: group, Figures: stats(members)}
	if len(members) >= MinGroup {
		kept := members[:0:0]
		for _, m := range members {
			if why := s.contradicts(m.Figures); why != "" {
				if s.Outliers == nil {
					s.Outliers = map[string]string{}
				}
				s.Outliers[m.ID] = why
				continue
			}
			kept = append(kept, m)
		}
		s.Figures = stats(kept)
		members = kept
	}
	s.Count = len(members)
	return s
}

// Held returns why an upload with figures contradicts an established group
// (one of at least MinGroup uploads), or nil when it does not.
func (s *Summary) Held(figures map[string]float64) []string {
	if s.Count < MinGroup {
		return nil
	}
	if why := s.contradicts(figures); why != "" {
		return []string{why}
	}
	return nil
}

// contradicts returns why figures are outside the outlier bound of s, or "".
func (s *Summary) contradicts(figures map[string]float64) string {
	for _, name := range Charged {
		st, ok := s.Figures[name]
		v, has := figures[name]
		if !ok || !has {
			continue
		}
		if b := Bound(st); math.Abs(v-st.Median) > b {
			return fmt.Sprintf("%s %s is %s from the group's median %s (bound ±%s over %d uploads)",
				name, describe(name, v), describe(name, math.Abs(v-st.Median)), describe(name, st.Median), describe(name, b), st.Count)
		}
	}
	return ""
}

// Bound is the distance from the median past which a figure is an outlier.
func Bound(st Stat) float64 {
	return max(OutlierMADs*1.4826*st.MAD, OutlierShare*math.Abs(st.Median), OutlierFloor)
}

func stats(members []Member) map[string]Stat {
	values := map[string][]float64{}
	for _, m := range members {
		for name, v := range m.Figures {
			values[name] = append(values[name], v)
		}
	}
	out := make(map[string]Stat, len(values))
	for name, vs := range values {
		out[name] = stat(vs)
	}
	return out
}

// stat summarizes vs, which it sorts.
func stat(vs []float64) Stat {
	sort.Float64s(vs)
	med := median(vs)
	dev := make([]float64, len(vs))
	for i, v := range vs {
		dev[i] = math.Abs(v - med)
	}
	slices.Sort(dev)
	return Stat{Median: med, MAD: median(dev), Min: vs[0], Max: vs[len(vs)-1], Count: len(vs)}
}

// median of sorted vs, the mean of the middle two for an even count.
func median(vs []float64) float64 {
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// Calibration returns the community calibration of s: its medians, with
// the identity (GPU name, architecture, driver, CUDA, platform) of like, a
// member of the group, and date as its provenance date.
func (s *Summary) Calibration(like *planner.Calibration, date string) planner.Calibration {
	c := planner.Calibration{Schema: planner.CalibrationSchema, ID: s.Group, GPU: like.GPU, Arch: like.Arch,
		SMCount: like.SMCount, Driver: like.Driver, CUDA: like.CUDA, Platform: like.Platform,
		Source: planner.CalibrationCommunity}
	med := make(map[string]float64, len(s.Figures))
	for name, st := range s.Figures {
		med[name] = st.Median
	}
	calibration(&c, med)
	c.Provenance = planner.Provenance{Method: "community aggregate", Date: date, Runs: s.Count,
		Notes: s.notes()}
	return c
}

func (s *Summary) notes() string {
	st := s.Figures[FigContext]
	return fmt.Sprintf("Median of %d uploads of `gpuagent calibrate` (%d held out as outliers) in group %s; "+
		"context_bytes spread (MAD) %s, range %s–%s. Every figure's median, MAD, min, max and count: /api/community.",
		s.Count, len(s.Outliers), s.Group, describe(FigContext, st.MAD), describe(FigContext, st.Min), describe(FigContext, st.Max))
}
