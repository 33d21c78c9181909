package calibrations_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// TestResolveTable resolves, over the shipped table, the names issue 27
// found refused: each the card's Linux entry, or the choice between cards.
func TestResolveTable(t *testing.T) {
	all, _ := calibrations.All()
	for _, tt := range []struct{ name, want string }{
		{"rtx4090", "est-rtx4090-linux"}, {"4090", "est-rtx4090-linux"}, {"RTX 4090", "est-rtx4090-linux"},
		{"3090", "est-rtx3090-linux"}, {"l40s", "est-l40s-linux"}, {"h200", "h200-linux-cuda13.0"},
		{"5090", "est-rtx5090-linux"}, {"rtx5090", "est-rtx5090-linux"}, {"rtx5090-wsl2", "rtx5090-wsl2-cuda13.3"},
		{"ＲＴＸ ４０９０", "est-rtx4090-linux"},                                                            // full-width, folded by NFKC
		{"NVIDIA A10", "est-a10-linux"}, {"a10", "est-a10-linux"}, {"NVIDIA A10G", "est-a10g-linux"}, // two cards, not one
	} {
		c, _, err := calibrations.Resolve(tt.name, all, nil)
		if err != nil || c.ID != tt.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tt.name, c.ID, err, tt.want)
		}
	}
	for name, want := range map[string][]string{
		"h100": {"est-h100-nvl-linux", "est-h100-pcie-linux", "est-h100-sxm-linux"}, "a100": {"est-a100-40gb-linux", "est-a100-80gb-linux"},
	} {
		_, _, err := calibrations.Resolve(name, all, nil)
		var e *names.Error
		if !errors.As(err, &e) || !slices.Equal(e.Matches, want) || !strings.Contains(err.Error(), "under Linux, estimated") {
			t.Errorf("Resolve(%q) = %v, want the choice of %v", name, err, want)
		}
	}
	_, note, _ := calibrations.Resolve("rtx5090", all, nil)
	if !strings.Contains(note, "rtx5090-wsl2-cuda13.3 (NVIDIA GeForce RTX 5090 under WSL2, measured)") {
		t.Errorf("Resolve(rtx5090) note %q, want it to name the WSL2 entry", note)
	}
	// A typo's suggestions hold every kind of entry (an estimate first here).
	_, _, err := calibrations.Resolve("RTX 4900", all, nil)
	var e *names.Error
	if !errors.As(err, &e) || len(e.Near) == 0 || e.Near[0] != "est-rtx4090-linux" {
		t.Errorf(`Resolve("RTX 4900") = %v, want est-rtx4090-linux first`, err)
	}
}

// TestDescribe names a calibration as a list shows it, and one that names
// no card or platform (an --input's own) by its id, with no empty words.
func TestDescribe(t *testing.T) {
	h200, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    planner.Calibration
		want string
	}{
		{h200, "NVIDIA H200 under Linux, measured"},
		{planner.Calibration{ID: "c"}, "c, measured"},
		{planner.Calibration{ID: "c", GPU: "NVIDIA L4"}, "NVIDIA L4, measured"},
	} {
		if got := calibrations.Describe(&tc.c); got != tc.want {
			t.Errorf("Describe(%s) = %q, want %q", tc.c.ID, got, tc.want)
		}
	}
}
