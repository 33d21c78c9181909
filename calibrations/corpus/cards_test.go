package corpus

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestCards holds every card of the table to a total: its calibration's,
// or a figure with its source, under 1 TiB.
func TestCards(t *testing.T) {
	for name, c := range cards {
		b, from, err := CardTotal(name)
		switch {
		case err != nil:
			t.Errorf("CardTotal(%q) = %v", name, err)
		case b <= 0 || b > 1024*planner.GiB:
			t.Errorf("CardTotal(%q) = %d bytes, want more than 0 and at most 1 TiB", name, b)
		case c.Calibration == "" && (c.Source == "" || from != c.Source):
			t.Errorf("CardTotal(%q): a figure of no calibration says no source", name)
		case c.Calibration != "" && (c.GiB != 0 || c.Source != ""):
			t.Errorf("cards[%q] names calibration %s and a figure too: want one source", name, c.Calibration)
		}
	}
	if _, _, err := CardTotal("NVIDIA L4000"); err == nil {
		t.Error(`CardTotal("NVIDIA L4000") = nil error, want the cards it knows`)
	}
}
