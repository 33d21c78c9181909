package community_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

// group is a community group of n distinct clients of card (a table
// entry whose figures it takes) under key.
func group(t *testing.T, key, card string, n int) community.Group {
	t.Helper()
	like, err := calibrations.Lookup(card)
	if err != nil {
		t.Fatal(err)
	}
	var ms []community.Member
	for i := range n {
		ms = append(ms, community.Member{ID: key + string(rune('a'+i)), Client: string(rune('a' + i)), Figures: community.Figures(&like)})
	}
	s := community.Summarize(key, ms)
	c := s.Calibration(&like, "2026-12-01")
	return community.Group{Summary: &s, Calibration: &c}
}

func ids(cs []planner.Calibration) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// TestList checks the picker's data: a listed group replaces its card's
// estimate, whose id then resolves to it; of two listed groups of a card
// the one of more clients is offered; pending groups are not offered and
// resolve to their card's entry, or to nothing with their reason.
func TestList(t *testing.T) {
	table, _ := calibrations.All()
	gs := []community.Group{
		group(t, "h200-140gib-linux-r580-cuda13.0", "h200-linux-cuda13.0", 3),
		group(t, "rtx4090-24gib-linux-r570-cuda12.8", "est-rtx4090-linux", 3),
		group(t, "rtx4090-24gib-linux-r580-cuda13.0", "est-rtx4090-linux", 4),
		group(t, "rtx3090-24gib-linux-r580-cuda13.0", "est-rtx3090-linux", 2),
		group(t, "b200-179gib-linux-r580-cuda13.0", "est-b200-linux", 1),
	}
	l := community.List(table, gs)
	got := ids(l.Calibrations)
	if !slices.Contains(got, "rtx4090-24gib-linux-r580-cuda13.0") || slices.Contains(got, "rtx4090-24gib-linux-r570-cuda12.8") ||
		slices.Contains(got, "est-rtx4090-linux") || !slices.Contains(got, "est-rtx3090-linux") ||
		!slices.Contains(got, "h200-linux-cuda13.0") || !slices.Contains(got, "h200-140gib-linux-r580-cuda13.0") {
		t.Errorf("picker = %v", got)
	}
	if got[0] != "h200-linux-cuda13.0" || l.Calibrations[len(got)-1].Kind() != planner.CalibrationEstimated {
		t.Errorf("picker order = %v, want measured first and estimated last", got)
	}
	for _, tt := range []struct{ name, want, note string }{
		{"est-rtx4090-linux", "rtx4090-24gib-linux-r580-cuda13.0", "is replaced by the community aggregate rtx4090-24gib-linux-r580-cuda13.0 (4 distinct clients)"},
		{"rtx4090-24gib-linux-r570-cuda12.8", "rtx4090-24gib-linux-r580-cuda13.0", "not the one the picker offers"},
		{"rtx3090-24gib-linux-r580-cuda13.0", "est-rtx3090-linux", "is pending: 2 of the 3 distinct clients"},
		{"rtx4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"h200", "h200-linux-cuda13.0", ""},
		{"b200", "est-b200-linux", ""},
	} {
		c, note, err := calibrations.Resolve(tt.name, l.Calibrations, l.Aliases)
		if err != nil || c.ID != tt.want || !strings.Contains(note, tt.note) {
			t.Errorf("Resolve(%q) = %s, %q, %v; want %s, %q", tt.name, c.ID, note, err, tt.want, tt.note)
		}
	}
	unknown := group(t, "rtxa6000-48gib-linux-r580-cuda13.0", "est-l40s-linux", 3)
	l = community.List(table, []community.Group{unknown})
	if _, _, err := calibrations.Resolve("rtxa6000-48gib-linux-r580-cuda13.0", l.Calibrations, l.Aliases); err == nil ||
		!strings.Contains(err.Error(), "pending: the card's total is not known") {
		t.Errorf("a pending group of an unknown card resolves: %v", err)
	}
	if len(l.Calibrations) != len(table) {
		t.Errorf("an unknown card's group joined the picker: %v", ids(l.Calibrations))
	}
}
