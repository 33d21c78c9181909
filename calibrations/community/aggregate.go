package community

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/vramplan/vramplan/planner"
)

// The outlier rule. In a group of at least MinGroup distinct clients, an
// upload is an outlier when one of its Charged figures lies farther from
// the group's median than the bound: the largest of OutlierMADs robust
// standard deviations (1.4826 × MAD), OutlierShare of the median, and
// OutlierFloor bytes. The floor and the share keep a group of identical
// measurements (MAD 0) from casting out an upload a few MiB off. Outliers
// are listed and kept, but the statistics are computed without them. The
// prior rule (prior.go) holds out what departs from the card's prior
// first, in a group of any size.
const (
	MinGroup     = 3
	OutlierMADs  = 3.5
	OutlierShare = 0.10
	OutlierFloor = float64(16 * planner.MiB)
)

// Rules is the version of the aggregation's rules. An aggregate computed
// under other rules (cached by a server before they changed) is computed
// again.
const Rules = 2

// Stat summarizes one figure over a group's clients: each client counts
// once, with the median of its own uploads' values.
type Stat struct {
	Median float64 `json:"median"`
	MAD    float64 `json:"mad"` // median absolute deviation from Median
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Count  int     `json:"count"` // clients that measured it
}

// Member is one accepted upload of a group, as aggregation sees it.
type Member struct {
	ID string
	// Client is the uploader's client key (the store's salted hash of its
	// address); members with one Client count once. Empty, the member is a
	// client of its own.
	Client  string
	Figures map[string]float64
}

// Summary is a group's aggregate.
type Summary struct {
	Group string `json:"group"`
	// Count is the uploads aggregated, outliers left out, and Clients the
	// distinct clients they came from.
	Count   int `json:"count"`
	Clients int `json:"clients"`
	// Outliers are the ids of the uploads held out, with the reason.
	Outliers map[string]string `json:"outliers,omitempty"`
	Figures  map[string]Stat   `json:"figures"`
	// Pending says why the group is not yet planned on (prior.go), empty
	// once it is.
	Pending string `json:"pending,omitempty"`
}

// Summarize aggregates a group's members: the statistics of every figure,
// over the clients of the members that are neither outliers nor departing
// from the group's prior (PriorOf of the group's key, when it is one).
func Summarize(group string, members []Member) Summary {
	key, _ := ParseKey(group)
	prior := PriorOf(key)
	return summarize(group, members, &prior)
}

func summarize(group string, members []Member, prior *Prior) Summary {
	s := Summary{Group: group}
	members = s.holdOut(members, prior.departs)
	s.Figures, s.Clients = stats(members, prior.figures)
	if s.Clients >= MinGroup {
		if kept := s.holdOut(members, s.contradicts); len(kept) < len(members) { // none held out: the statistics stand
			members = kept
			s.Figures, s.Clients = stats(members, prior.figures)
		}
	}
	s.Count = len(members)
	s.Pending = s.pending(prior)
	return s
}

// holdOut returns the members why finds nothing against, listing the
// others among s's outliers.
func (s *Summary) holdOut(members []Member, why func(map[string]float64) string) []Member {
	kept := members[:0:0]
	for i, m := range members {
		if i%yieldEvery == yieldEvery-1 {
			runtime.Gosched() // as stats does: 10,000 members take milliseconds
		}
		if w := why(m.Figures); w != "" {
			if s.Outliers == nil {
				s.Outliers = map[string]string{}
			}
			s.Outliers[m.ID] = w
			continue
		}
		kept = append(kept, m)
	}
	if len(kept) == len(members) {
		return members
	}
	return kept
}

// Held returns why an upload with figures contradicts an established group
// (one of at least MinGroup clients), or nil when it does not.
func (s *Summary) Held(figures map[string]float64) []string {
	if s.Clients < MinGroup {
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
			return fmt.Sprintf("%s %s is %s from the group's median %s (bound ±%s over %d clients)",
				name, describe(name, v), describe(name, math.Abs(v-st.Median)), describe(name, st.Median), describe(name, b), st.Count)
		}
	}
	return ""
}

// Bound is the distance from the median past which a figure is an outlier.
func Bound(st Stat) float64 {
	return max(OutlierMADs*1.4826*st.MAD, OutlierShare*math.Abs(st.Median), OutlierFloor)
}

// stats summarizes every figure over the clients of members (byClient),
// each figure's median of an even count of clients the middle value
// nearer to ref's, when ref has the figure (so that as many clients
// pulling a figure away from its prior as holding it there move nothing),
// and returns the number of clients. It yields the processor
// (runtime.Gosched) between figures and every yieldEvery members read: a
// group of 10,000 uploads takes tens of milliseconds to summarize, in the
// background of a server whose requests would otherwise wait behind it on
// one of a few cores, up to the scheduler's 10 ms time slice each.
func stats(members []Member, ref map[string]float64) (map[string]Stat, int) {
	clients := byClient(members)
	values := make(map[string]*[]float64, 48)
	for i, m := range clients {
		if i%yieldEvery == yieldEvery-1 {
			runtime.Gosched()
		}
		for name, v := range m.Figures {
			vs := values[name]
			if vs == nil {
				vs = new([]float64)
				*vs = make([]float64, 0, len(clients))
				values[name] = vs
			}
			*vs = append(*vs, v)
		}
	}
	out := make(map[string]Stat, len(values))
	dev := make([]float64, len(clients))
	for name, vs := range values {
		r, ok := ref[name]
		if !ok {
			r = math.NaN()
		}
		out[name] = stat(*vs, dev, r)
		runtime.Gosched()
	}
	return out, len(clients)
}

// byClient returns one member per client of members, in the order of
// their first uploads: a client's only upload as it is, and for a client
// of several uploads each figure the median of its values.
func byClient(members []Member) []Member {
	at := make(map[string]int, len(members)) // a client's index in out
	out := make([]Member, 0, len(members))
	var more map[int][]Member // a client's members after its first
	for _, m := range members {
		j, ok := at[m.Client]
		switch {
		case m.Client == "" || !ok: // a member of no client is one of its own
			if m.Client != "" {
				at[m.Client] = len(out)
			}
			out = append(out, m)
		case more == nil:
			more = map[int][]Member{j: {m}}
		default:
			more[j] = append(more[j], m)
		}
	}
	for j, ms := range more {
		out[j].Figures = medians(append(ms, out[j]))
	}
	return out
}

// medians returns each figure's median over members.
func medians(members []Member) map[string]float64 {
	values := map[string][]float64{}
	for _, m := range members {
		for name, v := range m.Figures {
			values[name] = append(values[name], v)
		}
	}
	out := make(map[string]float64, len(values))
	for name, vs := range values {
		out[name] = median(vs, math.NaN())
	}
	return out
}

// yieldEvery is how many members stats reads between two yields: about a
// millisecond's work.
const yieldEvery = 256

// stat summarizes vs, which it reorders, with dev as scratch space of at
// least len(vs); the median of an even count is the middle value nearer
// ref, or the mean of the two when ref is NaN. Values are ordered as
// sort.Float64s orders them (cmp.Less: a NaN below every number), so the
// statistics are those of vs sorted.
func stat(vs, dev []float64, ref float64) Stat {
	lo, hi := vs[0], vs[0]
	for _, v := range vs[1:] {
		if cmp.Less(v, lo) {
			lo = v
		}
		if cmp.Less(hi, v) {
			hi = v
		}
	}
	med := median(vs, ref)
	dev = dev[:len(vs)]
	for i, v := range vs {
		dev[i] = math.Abs(v - med)
	}
	return Stat{Median: med, MAD: median(dev, math.NaN()), Min: lo, Max: hi, Count: len(vs)}
}

// median returns the median of vs, reordering vs: the value at the
// middle of vs sorted, found by selection (selectNth) rather than by
// sorting; of an even count, the mean of the middle two, or when ref is
// not NaN the one nearer ref (the lower on a tie).
func median(vs []float64, ref float64) float64 {
	n := len(vs)
	k := n / 2
	selectNth(vs, k)
	if n%2 == 1 {
		return vs[k]
	}
	below := vs[0] // the largest of vs[:k], all ordered at or below vs[k]
	for _, v := range vs[1:k] {
		if cmp.Less(below, v) {
			below = v
		}
	}
	switch {
	case math.IsNaN(ref):
		return (below + vs[k]) / 2
	case math.Abs(vs[k]-ref) < math.Abs(below-ref):
		return vs[k]
	}
	return below
}

// selectNth reorders vs so that vs[k] is the value sorting would put there,
// with no value after it ordered below it and none before it above it
// (cmp.Less). It is quickselect with median-of-three pivots and a
// three-way partition (a figure's values and their deviations repeat a
// lot), in expected linear time; a range still wide after 2·log2(n)
// rounds, which only contrived inputs make, is sorted instead, so the
// worst case is n log n.
func selectNth(vs []float64, k int) {
	lo, hi := 0, len(vs)-1
	for budget := 2 * bits.Len(uint(len(vs))); lo < hi; budget-- {
		if budget == 0 {
			slices.SortFunc(vs[lo:hi+1], cmp.Compare[float64])
			return
		}
		eq, gt := partition(vs, lo, hi)
		switch {
		case k < eq:
			hi = eq - 1
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
}

// partition orders vs[lo..hi] into the values ordered below a pivot (the
// median of the first, middle and last), those equal to it, and those
// above it, and returns where the equal ones begin and end: vs[eq:gt].
func partition(vs []float64, lo, hi int) (eq, gt int) {
	a, b, c := vs[lo], vs[lo+(hi-lo)/2], vs[hi]
	if cmp.Less(b, a) {
		a, b = b, a
	}
	if cmp.Less(c, b) {
		b = c
		if cmp.Less(b, a) {
			b = a
		}
	}
	pivot := b
	eq, gt = lo, hi+1
	for i := lo; i < gt; {
		switch {
		case cmp.Less(vs[i], pivot):
			vs[eq], vs[i] = vs[i], vs[eq]
			eq++
			i++
		case cmp.Less(pivot, vs[i]):
			gt--
			vs[gt], vs[i] = vs[i], vs[gt]
		default:
			i++
		}
	}
	return eq, gt
}

// Calibration returns the community calibration of s: its medians, with
// the identity (architecture, driver, CUDA, platform) of like, a member of
// the group, and date as its provenance date. The GPU of a known card's
// group is named as gpus.go names the card, whatever the uploads spelled,
// so the picker shows one canonical name per card.
func (s *Summary) Calibration(like *planner.Calibration, date string) planner.Calibration {
	c := planner.Calibration{Schema: planner.CalibrationSchema, ID: s.Group, GPU: like.GPU, Arch: like.Arch,
		SMCount: like.SMCount, Driver: like.Driver, CUDA: like.CUDA, Platform: like.Platform,
		Source: planner.CalibrationCommunity}
	if k, ok := ParseKey(s.Group); ok {
		if g, ok := knownCard(k.GPU); ok {
			c.GPU = g.Name
		}
	}
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
	return fmt.Sprintf("Median of %d distinct clients' medians over %d uploads of `gpuagent calibrate` (%d held out) in group %s; "+
		"context_bytes spread (MAD) %s, range %s–%s. Every figure's median, MAD, min, max and count: /api/community.",
		s.Clients, s.Count, len(s.Outliers), s.Group, describe(FigContext, st.MAD), describe(FigContext, st.Min), describe(FigContext, st.Max))
}
