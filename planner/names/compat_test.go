package names_test

import (
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/vramplan/vramplan/planner/names"
)

// TestCompatIsNFKC holds Compat to NFKC: every rune it folds, NFKC folds
// to the same, and it folds the full-width forms and spaces it says.
func TestCompatIsNFKC(t *testing.T) {
	folded := 0
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		s := string(r)
		got := names.Compat(s)
		if got == s {
			continue
		}
		folded++
		if want := norm.NFKC.String(s); got != want {
			t.Errorf("Compat(%U) = %q, NFKC gives %q", r, got, want)
		}
	}
	if folded != 94+15 {
		t.Errorf("Compat folds %d runes, want the 94 full-width forms and 15 spaces", folded)
	}
	if got := names.Compat("ＮＶＩＤＩＡ　Ｈ２００"); got != "NVIDIA H200" {
		t.Errorf("Compat(full-width H200) = %q", got)
	}
	if s := "NVIDIA H200"; names.Compat(s) != s {
		t.Error("Compat changed ASCII")
	}
}
