package community

// This file holds a group to what is already known about its card: the
// total the card reports (gpus.go) and the nearest measured or estimated
// entry of the table, its prior. Without them, an anonymous group could
// say anything about any card; with them, what a group can publish is
// bounded however many uploads and addresses it has.

import (
	"math"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// The prior rule and the quorum.
//
// An upload, or a member being aggregated, whose context or library
// reserve (lazy or eager) lies farther from its prior's than PriorBound is
// held: not aggregated. The bound is wide (half the prior's figure, and at
// least PriorFloor) because the prior of most cards is another card's
// measurement: the driver model decides these charges more than the card
// (the H200 under Linux: 527 MiB of context; the RTX 5090 under WSL2:
// 1,680 MiB), and a card's own figures may well differ by a few hundred
// MiB. It is there to cap what any number of colluding clients can
// publish, not to judge honest measurements (the outlier rule does that).
//
// A group replaces nothing, and is neither in the picker nor planned on,
// until it has Quorum distinct clients, its card's total is known, and its
// medians are plausible against both (Summary.Pending). Quorum is 3: the
// smallest group whose median no one client sets. One client's figures
// are its own, and of two clients' medians (an even count) the median is
// one of the two; of three, one client can only choose which of the other
// two it is. Each client counts once whatever the number of its uploads
// (its own median, figure by figure), so a median moves only when more
// clients than not agree on moving it: see docs/architecture.md.
const (
	PriorShare = 0.5
	PriorFloor = float64(256 * planner.MiB)
	Quorum     = 3
)

// priorFigures are the figures held against the prior. The device total is
// held against the card's known total instead (checkModel): a prior of
// another card has another total.
var priorFigures = []string{FigContext, FigContextEager, FigLibrary, FigLibraryEager}

// PriorBound is how far from its prior's value v a figure may lie.
func PriorBound(v float64) float64 { return max(PriorShare*math.Abs(v), PriorFloor) }

// Prior is what a group's figures are held against.
type Prior struct {
	// Entry is the nearest measured or estimated entry of the table: the
	// card's own on the group's platform (measured before estimated), else
	// the first measured entry of that platform; nil when there is none.
	Entry *planner.Calibration
	// Card is the card's known total, when Known.
	Card  GPU
	Known bool
	// figures are Entry's Figures.
	figures map[string]float64
}

// PriorOf returns the prior of group k.
func PriorOf(k Key) Prior {
	var p Prior
	p.Card, p.Known = knownCard(k.GPU)
	all, _ := calibrations.All() // the table, measured first; never an error
	var other *planner.Calibration
	for i := range all {
		c := &all[i]
		if c.Platform != k.Platform || c.Kind() == planner.CalibrationCommunity {
			continue
		}
		if NormalizeGPU(c.GPU) == k.GPU {
			p.Entry = c
			break
		}
		if other == nil && c.Kind() == planner.CalibrationMeasured {
			other = c
		}
	}
	if p.Entry == nil {
		p.Entry = other
	}
	if p.Entry != nil {
		p.figures = Figures(p.Entry)
	}
	return p
}

// departs returns why figures depart from the prior by more than
// PriorBound, or "".
func (p *Prior) departs(figures map[string]float64) string {
	for _, name := range priorFigures {
		want, ok := p.figures[name]
		v, has := figures[name]
		if !ok || !has {
			continue
		}
		if b := PriorBound(want); math.Abs(v-want) > b {
			return name + " " + describe(name, v) + " departs from " + describe(name, want) + " in " + p.Entry.ID +
				" by more than the bound ±" + describe(name, b) + " (" + strconv.FormatFloat(100*PriorShare, 'g', -1, 64) +
				" % of the prior's figure, at least " + describe(name, PriorFloor) + ")"
		}
	}
	return ""
}

// Held returns why ch is held whatever its group holds: it departs from
// its prior (PriorOf of its group) by more than PriorBound.
func (ch *Checked) Held() []string {
	p := PriorOf(ch.Group)
	if why := p.departs(ch.Figures); why != "" {
		return []string{why}
	}
	return nil
}

// ParseKey reads a group's key as Key.String writes it, reporting whether
// it is one.
func ParseKey(s string) (Key, bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return Key{}, false
	}
	gib, ok := strings.CutSuffix(parts[1], "gib")
	total, err := strconv.ParseInt(gib, 10, 64)
	cuda, ok2 := strings.CutPrefix(parts[4], "cuda")
	if !ok || !ok2 || err != nil {
		return Key{}, false
	}
	return Key{GPU: parts[0], TotalGiB: total, Platform: parts[2], Branch: parts[3], CUDA: cuda}, true
}

// pending returns why s is not yet a calibration to plan on, or "": too
// few distinct clients, a card whose total is not known, or no entry to
// hold it against. Its figures need no check of their own: every upload
// of a known card has its total (checkModel), every member aggregated is
// within the prior's bound (departs), and so are their medians.
func (s *Summary) pending(p *Prior) string {
	switch {
	case s.Clients < Quorum:
		return strconv.Itoa(s.Clients) + " of the " + strconv.Itoa(Quorum) + " distinct clients a group needs before it is planned on"
	case !p.Known:
		return "the card's total is not known (calibrations/community/gpus.go lists the cards whose totals are)"
	case p.Entry == nil:
		return "no measured or estimated entry of its platform to hold its figures against"
	}
	return ""
}
