package planner

import (
	"strconv"
	"strings"
	"testing"
)

// TestParseBytes holds the forms the CLI's --budget, the calculator's budget
// field and GET /api/plan's budget take: binary and decimal units in any
// case, with or without a space, and the thousands separators the calculator
// prints.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]Bytes{
		"24GiB": 24 * GiB, "24gib": 24 * GiB, "24 GiB": 24 * GiB, "24G": 24 * GiB, "24 g": 24 * GiB,
		"24gb": 24e9, "24GB": 24e9, "24 GB": 24e9, " 24 Gb ": 24e9, "1.5T": TiB + TiB/2,
		"32607 MiB": 32607 * MiB, "32,607 MiB": 32607 * MiB, "1,048,576": MiB, "1,234.5 MB": 1234.5e6,
		"0": 0, "512": 512,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "24 GiBs", "1,5 GB", "1,5000", ",123", "12,34,567", "1,234.5,6", "-1GiB",
		"NaN", "inf", "1e30", "24 gigs", "24 G B"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

// FuzzParseBytes feeds arbitrary text to the one size parser: no panic, a
// size in [0, MaxBytes), and the same size read back from its bytes and,
// grouped as the calculator prints it, from its MiB.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"24GiB", "24gb", "24 GB", "32,607 MiB", "1.5T", "1e9b", "1,5 GB", "0x1p30", "9e18"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBytes(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseBytes(%q): error %q does not quote the input", s, err)
			}
			return
		}
		if b < 0 || b >= MaxBytes {
			t.Fatalf("ParseBytes(%q) = %d, outside [0, MaxBytes)", s, b)
		}
		if again, err := ParseBytes(strconv.FormatInt(int64(b), 10) + "b"); err != nil || again != b {
			t.Fatalf("ParseBytes(%q) = %d, but its bytes read back as %d, %v", s, b, again, err)
		}
		whole := b / MiB * MiB
		if again, err := ParseBytes(group(int64(whole/MiB)) + " MiB"); err != nil || again != whole {
			t.Fatalf("ParseBytes(%q) = %d: its %d MiB, grouped, read back as %d, %v", s, b, whole/MiB, again, err)
		}
	})
}

// group writes n with thousands separators, as the calculator prints it.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
