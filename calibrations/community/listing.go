package community

// This file decides what the calculator offers: the table's entries and
// the community aggregates that count, one per card and platform, in the
// picker's order; and what every other id that once resolved resolves to
// now (names.Alias), so that a shared link or an embed outlives the
// uploads that change the picker.

import (
	"strconv"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// A Group is one community group as List reads it.
type Group struct {
	Summary *Summary
	// Calibration is the group's community calibration, nil while it has
	// none (no accepted upload).
	Calibration *planner.Calibration
}

// Listed reports whether g is planned on: it has a calibration and
// nothing keeps it pending.
func (g *Group) Listed() bool { return g.Calibration != nil && g.Summary.Pending == "" }

// Listing is what the calculator offers and resolves.
type Listing struct {
	// Calibrations is the picker: measured entries, then community
	// aggregates, then estimated entries, each in the order given.
	Calibrations []planner.Calibration
	// Aliases are the ids not in Calibrations that still resolve: an
	// estimate a community aggregate replaced, a group another group of
	// its card outranks, a pending group.
	Aliases []names.Alias
}

// List merges the table (in its order: measured, then community, then
// estimated entries) with the groups, after the measured entries.
// Of the listed groups of one card and platform the picker offers one,
// the one of the most clients (then the last key), which replaces the card's estimate there; the others, and the
// pending groups, resolve to what the picker offers for their card and
// platform. A pending group of a card the picker has nothing for
// resolves to nothing, with its reason.
func List(table []planner.Calibration, groups []Group) Listing {
	best := map[string]*Group{}
	for i := range groups {
		g := &groups[i]
		if !g.Listed() {
			continue
		}
		k := cardKey(g.Calibration)
		if b := best[k]; b == nil || outranks(g, b) {
			best[k] = g
		}
	}
	var l Listing
	for _, c := range table { // the measured entries first, as the table has them
		if c.Kind() == planner.CalibrationMeasured {
			l.Calibrations = append(l.Calibrations, c)
		}
	}
	for i := range groups {
		if g := &groups[i]; g.Listed() && best[cardKey(g.Calibration)] == g {
			l.Calibrations = append(l.Calibrations, *g.Calibration)
		}
	}
	for _, c := range table {
		b := best[cardKey(&c)]
		switch {
		case c.Kind() == planner.CalibrationMeasured:
		case b != nil && c.Kind() == planner.CalibrationEstimated:
			l.Aliases = append(l.Aliases, names.Alias{From: c.ID, To: b.Calibration.ID, Note: c.ID +
				", the estimate for the " + calibrations.Describe(&c) + " card, is replaced by the community aggregate " +
				b.Calibration.ID + " (" + clients(b.Summary.Clients) + ")"})
		default:
			l.Calibrations = append(l.Calibrations, c)
		}
	}
	offered := map[string]string{} // card key → the id the picker offers first for it
	for i := range l.Calibrations {
		if k := cardKey(&l.Calibrations[i]); offered[k] == "" {
			offered[k] = l.Calibrations[i].ID
		}
	}
	for i := range groups {
		if a, ok := aliasOf(&groups[i], best, offered); ok {
			l.Aliases = append(l.Aliases, a)
		}
	}
	return l
}

// aliasOf returns what g's id resolves to when the picker does not offer
// it.
func aliasOf(g *Group, best map[string]*Group, offered map[string]string) (names.Alias, bool) {
	a := names.Alias{From: g.Summary.Group}
	key, _ := ParseKey(g.Summary.Group)
	k := key.GPU + "/" + key.Platform
	switch {
	case g.Listed() && best[k] == g:
		return a, false
	case g.Listed():
		a.To = best[k].Calibration.ID
		a.Note = "community group " + a.From + " is not the one the picker offers for its card; planned on " + a.To +
			" (" + clients(best[k].Summary.Clients) + ")"
		return a, true
	}
	a.To = offered[k]
	a.Note = "community group " + a.From + " is pending: " + g.Summary.Pending
	if a.To != "" {
		a.Note += "; planned on " + a.To + " until it counts"
	}
	return a, true
}

// outranks reports whether g is offered before b: more clients, then the
// later key.
func outranks(g, b *Group) bool {
	if g.Summary.Clients != b.Summary.Clients {
		return g.Summary.Clients > b.Summary.Clients
	}
	return g.Summary.Group > b.Summary.Group
}

// cardKey is a calibration's card and platform, as groups are keyed.
func cardKey(c *planner.Calibration) string { return NormalizeGPU(c.GPU) + "/" + c.Platform }

func clients(n int) string {
	if n == 1 {
		return "1 client"
	}
	return strconv.Itoa(n) + " distinct clients"
}
