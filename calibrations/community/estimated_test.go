package community_test

import (
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

// TestEstimatedEntries checks every estimated entry: a card of the known
// table, its device total consistent with what the card reports, and every
// other figure the nearest measured entry's, which its notes name.
func TestEstimatedEntries(t *testing.T) {
	all, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	measured, _ := calibrations.Lookup("h200-linux-cuda13.0")
	n := 0
	for _, c := range all {
		if c.Kind() != planner.CalibrationEstimated {
			continue
		}
		n++
		g, ok := community.Known(c.GPU)
		if !ok {
			t.Errorf("%s: %q is not a known card", c.ID, c.GPU)
			continue
		}
		if got, want := int64(c.DeviceTotal), g.TotalMiB*int64(planner.MiB); got > want || got < want*92/100 {
			t.Errorf("%s: device total %d, the card reports %d MiB", c.ID, got, g.TotalMiB)
		}
		if c.Context != measured.Context || c.LibraryReserve != measured.LibraryReserve || !strings.Contains(c.Provenance.Notes, measured.ID) {
			t.Errorf("%s: context/library not those of %s, or the notes do not name it", c.ID, measured.ID)
		}
		if !strings.HasPrefix(c.ID, "est-") {
			t.Errorf("%s: estimated ids start with est- so no prefix of a measured id names one", c.ID)
		}
	}
	if n < 13 {
		t.Errorf("%d estimated entries, want the 13 cards of the issue", n)
	}
	if all[0].Kind() != planner.CalibrationMeasured || all[len(all)-1].Kind() != planner.CalibrationEstimated {
		t.Errorf("table order: %s first, %s last; want measured first", all[0].ID, all[len(all)-1].ID)
	}
}
