package planner

import (
	"strconv"
	"strings"
	"testing"
)

// TestTenths checks the integer formatting of Bytes.String against the
// float formatting it replaced, at the halfway points, around them and
// at random sizes.
func TestTenths(t *testing.T) {
	float := func(b, unit Bytes) string {
		return strings.TrimSuffix(strconv.FormatFloat(float64(b)/float64(unit), 'f', 1, 64), ".0")
	}
	x := uint64(0x9e3779b97f4a7c15)
	for _, unit := range []Bytes{KiB, MiB, GiB} {
		for i := int64(0); i < 20000; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			cases := []Bytes{unit + Bytes(i)*unit/20, unit + Bytes(i)*unit/20 + 1, unit + Bytes(i)*unit/20 - 1,
				Bytes(x % uint64(1<<50))}
			for _, b := range cases {
				if b < unit {
					continue
				}
				if got, want := tenths(b, unit), float(b, unit); got != want {
					t.Fatalf("tenths(%d, %d) = %s, want %s", b, unit, got, want)
				}
			}
		}
	}
}
