package planner

import (
	"strings"
	"testing"

	"github.com/vramplan/vramplan/internal/printf"
)

// TestLinef checks linef against printf, which formats %B's arguments as
// Bytes values with %s: every name and detail the planner writes with
// linef reads as it did with printf.
func TestLinef(t *testing.T) {
	formats := []string{"", "plain", "%d", "%B", "KV cache (%d blocks of %d tokens)", "%d blocks × %B (%d tok × %B/token), ",
		"100%% of %d", "%d%d%B%B", "ends in %"}
	x := uint64(0x9e3779b97f4a7c15)
	for _, f := range formats {
		for range 2000 {
			var args []int64
			var any []interface{}
			ref := f
			for i := 0; i < strings.Count(f, "%d")+strings.Count(f, "%B"); i++ {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				v := int64(x>>(x%64)) - int64(x>>(64-x%8)) // small, large and negative
				args = append(args, v)
			}
			a := args
			for i := 0; i < len(ref)-1; i++ {
				if ref[i] != '%' {
					continue
				}
				switch ref[i+1] {
				case 'd':
					any, a = append(any, a[0]), a[1:]
				case 'B':
					any, a = append(any, Bytes(a[0])), a[1:]
					ref = ref[:i+1] + "s" + ref[i+2:]
				}
				i++
			}
			if got, want := linef(f, args...), printf.Sprintf(ref, any...); got != want {
				t.Fatalf("linef(%q, %v) = %q, want %q", f, args, got, want)
			}
		}
	}
	if got := linef("%x %d", 5); got != "%x 5" {
		t.Errorf("linef with a verb it does not have = %q, want it written as it is", got)
	}
	if got := linef("%d and %B", 1); got != "1 and %!(MISSING)" {
		t.Errorf("linef with a missing argument = %q", got)
	}
	if got, want := linefs("%d graphs, measured: %s (%s)", "h200", 3), "3 graphs, measured: h200 (h200)"; got != want {
		t.Errorf("linefs = %q, want %q", got, want)
	}
}
