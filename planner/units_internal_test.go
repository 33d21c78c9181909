package planner

import (
	"math"
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
				if got, want := string(appendTenths(nil, b, unit)), float(b, unit); got != want {
					t.Fatalf("appendTenths(%d, %d) = %s, want %s", b, unit, got, want)
				}
			}
		}
	}
}

// TestBytesString checks Bytes.String against a float formatting of its
// own, at every unit's edges, at overflow and at random sizes of both signs.
func TestBytesString(t *testing.T) {
	want := func(b Bytes) string {
		neg := ""
		if b < 0 {
			neg, b = "-", -b
		}
		one := func(unit Bytes, name string) string {
			return neg + strings.TrimSuffix(strconv.FormatFloat(float64(b)/float64(unit), 'f', 1, 64), ".0") + " " + name
		}
		switch {
		case b < 0: // -MinInt64
			return neg + strconv.FormatInt(int64(b), 10) + " B"
		case b >= MaxBytes:
			return neg + "overflow"
		case b >= 10*GiB || (b >= GiB && b%(GiB/10) == 0):
			return one(GiB, "GiB")
		case b >= MiB:
			return one(MiB, "MiB")
		case b >= KiB:
			return one(KiB, "KiB")
		}
		return neg + strconv.FormatInt(int64(b), 10) + " B"
	}
	cases := []Bytes{0, 1, 512, KiB - 1, KiB, MiB - 1, MiB, 2304 * MiB, GiB - 1, GiB, GiB + GiB/10, GiB + 1,
		10*GiB - 1, 10 * GiB, 4 * GiB, MaxBytes - 1, MaxBytes, MaxBytes + 1, -1, -KiB, -MaxBytes, math.MinInt64, math.MaxInt64}
	x := uint64(0x2545f4914f6cdd1d)
	for range 20000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		cases = append(cases, Bytes(x%uint64(1<<52))-Bytes(1<<50))
	}
	for _, b := range cases {
		if got, w := b.String(), want(b); got != w {
			t.Fatalf("Bytes(%d).String() = %q, want %q", int64(b), got, w)
		}
	}
}
