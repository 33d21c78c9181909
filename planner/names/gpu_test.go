package names_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner/names"
)

// cards are the table's kinds of entry: measured under Linux and WSL2,
// community, and estimated, in the picker's order.
var cards = []names.Card{
	{ID: "h200-linux-cuda13.0", Device: "NVIDIA H200", Platform: "linux", Label: "NVIDIA H200 under Linux, measured"},
	{ID: "rtx5090-wsl2-cuda13.3", Device: "NVIDIA GeForce RTX 5090", Platform: "wsl2", Label: "NVIDIA GeForce RTX 5090 under WSL2, measured"},
	{ID: "h200-140gib-linux-r580-cuda13.0", Device: "NVIDIA H200", Platform: "linux", Label: "NVIDIA H200 under Linux, community"},
	{ID: "rtx4090-24gib-linux-r580-cuda13.0", Device: "NVIDIA GeForce RTX 4090", Platform: "linux", Label: "NVIDIA GeForce RTX 4090 under Linux, community"},
	{ID: "est-a100-40gb-linux", Device: "NVIDIA A100-SXM4-40GB", Platform: "linux", Label: "NVIDIA A100-SXM4-40GB under Linux, estimated"},
	{ID: "est-a100-80gb-linux", Device: "NVIDIA A100-SXM4-80GB", Platform: "linux", Label: "NVIDIA A100-SXM4-80GB under Linux, estimated"},
	{ID: "est-h100-pcie-linux", Device: "NVIDIA H100 PCIe", Platform: "linux", Label: "NVIDIA H100 PCIe under Linux, estimated"},
	{ID: "est-h100-sxm-linux", Device: "NVIDIA H100 80GB HBM3", Platform: "linux", Label: "NVIDIA H100 80GB HBM3 under Linux, estimated"},
	{ID: "est-l4-linux", Device: "NVIDIA L4", Platform: "linux", Label: "NVIDIA L4 under Linux, estimated"},
	{ID: "est-l40s-linux", Device: "NVIDIA L40S", Platform: "linux", Label: "NVIDIA L40S under Linux, estimated"},
	{ID: "est-rtx3090-linux", Device: "NVIDIA GeForce RTX 3090", Platform: "linux", Label: "NVIDIA GeForce RTX 3090 under Linux, estimated"},
	{ID: "est-rtx5090-linux", Device: "NVIDIA GeForce RTX 5090", Platform: "linux", Label: "NVIDIA GeForce RTX 5090 under Linux, estimated"},
	{ID: "est-t4-linux", Device: "Tesla T4", Platform: "linux", Label: "Tesla T4 under Linux, estimated"},
}

var aliases = []names.Alias{
	{From: "est-rtx4090-linux", To: "rtx4090-24gib-linux-r580-cuda13.0", Note: "replaced by the community aggregate"},
	{From: "b200-180gib-linux-r580-cuda13.0", Note: "community group b200-180gib-linux-r580-cuda13.0 is pending: 1 of the 3 distinct clients"},
}

// TestGPU resolves the names people type for a card, whatever the kind of
// its entry, case, spaces, punctuation and vendor words aside.
func TestGPU(t *testing.T) {
	for _, tt := range []struct{ name, want, note string }{
		{"rtx4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"RTX 4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"NVIDIA GeForce RTX 4090", "rtx4090-24gib-linux-r580-cuda13.0", ""},
		{"3090", "est-rtx3090-linux", ""},
		{"L40S", "est-l40s-linux", ""},
		{"l4", "est-l4-linux", ""}, // not l40s: a whole name beats a prefix
		{"Tesla T4", "est-t4-linux", ""},
		{"h200", "h200-linux-cuda13.0", ""}, // the measured entry before the community's
		{"H100 SXM", "est-h100-sxm-linux", ""},
		{"a100-80gb", "est-a100-80gb-linux", ""},
		{"A100-SXM4-40GB", "est-a100-40gb-linux", ""},
		{"rtx5090", "est-rtx5090-linux", "also: rtx5090-wsl2-cuda13.3 (NVIDIA GeForce RTX 5090 under WSL2, measured)"},
		{"5090", "est-rtx5090-linux", "also: rtx5090-wsl2-cuda13.3"},
		{"rtx5090-wsl2", "rtx5090-wsl2-cuda13.3", ""}, // an id's prefix, as before
		{"RTX5090-WSL2-CUDA13.3", "rtx5090-wsl2-cuda13.3", ""},
		{"est-rtx4090-linux", "rtx4090-24gib-linux-r580-cuda13.0", "replaced by the community aggregate"},
		{"  h200-linux-cuda13.0 ", "h200-linux-cuda13.0", ""},
		{"est-l4", "est-l4-linux", ""}, // an id's prefix, to a word's end
	} {
		got, err := names.GPU(tt.name, cards, aliases)
		if err != nil || got.ID != tt.want || !strings.Contains(got.Note, tt.note) || tt.note == "" && got.Note != "" {
			t.Errorf("GPU(%q) = %+v, %v; want %s, note %q", tt.name, got, err, tt.want, tt.note)
		}
	}
}

// TestGPUChoices checks that a name of several cards lists them, labelled,
// and resolves to none of them.
func TestGPUChoices(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"h100", []string{"est-h100-pcie-linux", "est-h100-sxm-linux"}},
		{"a100", []string{"est-a100-40gb-linux", "est-a100-80gb-linux"}},
		{"NVIDIA A100", []string{"est-a100-40gb-linux", "est-a100-80gb-linux"}},
		{"A100 SXM4", []string{"est-a100-40gb-linux", "est-a100-80gb-linux"}}, // words of the device's name
	} {
		got, err := names.GPU(tt.name, cards, aliases)
		var e *names.Error
		if !errors.As(err, &e) || !slices.Equal(e.Matches, tt.want) || len(e.Labels) != len(tt.want) || got.ID != "" {
			t.Errorf("GPU(%q) = %+v, %v; want the choices %v", tt.name, got, err, tt.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "could be any of "+tt.want[0]+" ("+e.Labels[0]+")") {
			t.Errorf("GPU(%q): %s", tt.name, msg)
		}
	}
	_, err := names.GPU("est-", cards, nil)
	var e *names.Error
	if !errors.As(err, &e) || len(e.Matches) != 9 || e.More != 0 || !strings.Contains(err.Error(), "est-t4-linux") {
		t.Errorf(`GPU("est-") = %v`, err)
	}
	many := slices.Clone(cards)
	for i := range 20 {
		many = append(many, names.Card{ID: "est-x" + string(rune('a'+i)), Device: "X" + string(rune('a'+i)), Platform: "linux", Label: "x"})
	}
	if _, err = names.GPU("est-", many, nil); !errors.As(err, &e) || len(e.Matches) != names.MaxChoices || e.More != 29-names.MaxChoices ||
		!strings.Contains(err.Error(), "and 17 more") {
		t.Errorf(`GPU("est-") of 29 = %v`, err)
	}
}

// TestGPUNear checks a name that names nothing: the nearest entries, of
// every kind, and an alias with no target says why.
func TestGPUNear(t *testing.T) {
	for _, tt := range []struct{ name, near string }{
		{"rtx4900", "rtx4090-24gib-linux-r580-cuda13.0"},
		{"RTX 3900", "est-rtx3090-linux"},
		{"h2000", "h200-linux-cuda13.0"},
		{"NVIDIA", ""},
		// Other cards whose names start another's: a prefix ends at a
		// word, so none takes the A10G's or the H200's figures.
		{"NVIDIA H20", "h200-linux-cuda13.0"},
		{"rtx30", "est-rtx3090-linux"},
	} {
		_, err := names.GPU(tt.name, cards, aliases)
		var e *names.Error
		if !errors.As(err, &e) || len(e.Near) == 0 || len(e.Near) > names.MaxNear || tt.near != "" && !slices.Contains(e.Near, tt.near) {
			t.Errorf("GPU(%q) = %v, want %s among the nearest", tt.name, err, tt.near)
		}
	}
	_, err := names.GPU("B200-180GiB-linux-r580-cuda13.0", cards, aliases)
	if err == nil || !strings.Contains(err.Error(), "is pending: 1 of the 3") {
		t.Errorf("GPU(a pending group) = %v, want its reason", err)
	}
	if _, err := names.GPU("", cards, aliases); err == nil || !strings.HasPrefix(err.Error(), "no calibration named; one of: ") {
		t.Errorf(`GPU("") = %v`, err)
	}
}

// TestGPUNearFirst checks that the nearest entry listed first for a name
// that names nothing is the card whose model number is nearest: "A10" is
// the A10G, not the A100s, whose names hold "a10" as well.
func TestGPUNearFirst(t *testing.T) {
	cards := append(slices.Clone(cards), names.Card{ID: "est-a10g-linux", Device: "NVIDIA A10G", Platform: "linux", Label: "NVIDIA A10G under Linux, estimated"})
	for _, tt := range []struct{ name, first string }{
		{"A10", "est-a10g-linux"},
		{"NVIDIA A10", "est-a10g-linux"},
		{"A1000", "est-a100-40gb-linux"},
		{"H10", "est-h100-pcie-linux"},
		{"rtx4900", "rtx4090-24gib-linux-r580-cuda13.0"},
	} {
		_, err := names.GPU(tt.name, cards, aliases)
		var e *names.Error
		if !errors.As(err, &e) || len(e.Near) == 0 || e.Near[0] != tt.first {
			t.Errorf("GPU(%q) = %v, want %s first among the nearest", tt.name, err, tt.first)
		}
	}
}

// FuzzGPU resolves any name: an entry of the cards or an *Error, never a
// panic, and the entry is one of the cards.
func FuzzGPU(f *testing.F) {
	for _, s := range []string{"", "4090", "RTX 4090", "h100", "est-", "\xff", "NVIDIA", "0", "b200-180gib-linux-r580-cuda13.0", strings.Repeat("9", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got, err := names.GPU(name, cards, aliases)
		var e *names.Error
		switch {
		case err != nil && !errors.As(err, &e):
			t.Fatalf("GPU(%q) error %v is not an *Error", name, err)
		case err == nil && !slices.ContainsFunc(cards, func(c names.Card) bool { return c.ID == got.ID }):
			t.Fatalf("GPU(%q) = %q, not a card", name, got.ID)
		}
	})
}
