package planner

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// Bytes is a quantity of memory in bytes.
type Bytes int64

// Units of Bytes.
const (
	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
	TiB Bytes = 1 << 40
)

// MaxBytes is the largest quantity the planner computes with. Arithmetic that
// would exceed it saturates at MaxBytes instead of overflowing, so absurd
// inputs yield a plan that does not fit rather than a wrapped-around total.
const MaxBytes Bytes = 1 << 62

// MiB reports b in whole mebibytes, rounded toward zero, as the seed's
// tables print it.
func (b Bytes) MiB() int64 { return int64(b / MiB) }

// Grouped formats n with a comma between groups of three digits, as a
// person reads a long figure: "143,771". The planner's sentences (failure
// messages, warnings, the text's headline) print MiB figures this way; its
// tables and JSON keep plain integers.
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	if len(digits) <= 3 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	lead := len(digits) % 3
	if lead == 0 {
		lead = 3
	}
	b.WriteString(digits[:lead])
	for i := lead; i < len(digits); i += 3 {
		b.WriteByte(',')
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// mib is b in whole MiB, grouped, with its unit: "40,503 MiB".
func (b Bytes) mib() string { return Grouped(b.MiB()) + " MiB" }

// String formats b with the largest binary unit that keeps it readable:
// "2304 MiB", "4 GiB", "1.5 GiB", "512 B".
func (b Bytes) String() string {
	var buf [24]byte // "-" and 20 digits and " B" at the most
	return string(b.appendTo(buf[:0]))
}

// appendTo appends b, formatted as String formats it, to dst: the line
// items' details are written into one buffer each, not joined from one
// string per figure.
func (b Bytes) appendTo(dst []byte) []byte {
	if b < 0 {
		dst, b = append(dst, '-'), -b
	}
	unit, suffix := Bytes(1), " B"
	switch {
	case b >= MaxBytes:
		return append(dst, "overflow"...)
	case b >= 10*GiB || (b >= GiB && b%(GiB/10) == 0):
		unit, suffix = GiB, " GiB"
	case b >= MiB:
		unit, suffix = MiB, " MiB"
	case b >= KiB:
		unit, suffix = KiB, " KiB"
	}
	if unit == 1 { // b < 1 KiB, or -b overflowed
		dst = strconv.AppendInt(dst, int64(b), 10)
	} else {
		dst = appendTenths(dst, b, unit)
	}
	return append(dst, suffix...)
}

// appendTenths appends b / unit to one decimal, as strconv.FormatFloat(…,
// 'f', 1, 64) renders the quotient (rounded half to even), ".0" trimmed,
// in integers: every item of every rank of a layout plan states its bytes,
// and the float formatting was a sixth of a layout plan's allocations.
func appendTenths(dst []byte, b, unit Bytes) []byte {
	q, rem := int64(b/unit), int64(b%unit)
	t, r, u := q*10+rem*10/int64(unit), rem*10%int64(unit), int64(unit)
	if 2*r > u || (2*r == u && t%2 == 1) {
		t++
	}
	dst = strconv.AppendInt(dst, t/10, 10)
	if t%10 == 0 {
		return dst
	}
	return append(dst, '.', byte('0'+t%10))
}

var unitSuffixes = []struct {
	suffix string
	unit   Bytes
}{
	{"tib", TiB}, {"gib", GiB}, {"mib", MiB}, {"kib", KiB},
	{"tb", 1e12}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3},
	{"t", TiB}, {"g", GiB}, {"m", MiB}, {"k", KiB}, {"b", 1},
}

// ParseBytes parses a memory quantity such as "30GiB", "32607 MiB",
// "32,607 MiB", "1.5T" or "1048576". Single-letter suffixes are binary (G
// means GiB), as nvidia-smi and the seed use them; "GB" and friends are
// decimal. Units are read in any case, with or without a space.
func ParseBytes(s string) (Bytes, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	unit := Bytes(1)
	for _, u := range unitSuffixes {
		if strings.HasSuffix(t, u.suffix) {
			t, unit = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.unit
			break
		}
	}
	t, grouped := ungroup(t)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !grouped || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, printf.Errorf("invalid size %q: want a number with an optional unit such as 30GiB", s)
	}
	v := f * float64(unit)
	if v < 0 || v >= float64(MaxBytes) {
		return 0, printf.Errorf("size %q out of range", s)
	}
	return Bytes(math.Round(v)), nil
}

// ungroup removes the thousands separators of a number written as the
// calculator prints it ("32,607"). It reports false for commas that do not
// group whole digits in threes ("1,5" is a decimal comma, and refused).
func ungroup(t string) (string, bool) {
	if !strings.Contains(t, ",") {
		return t, true
	}
	whole, frac, _ := strings.Cut(t, ".")
	groups := strings.Split(whole, ",")
	for i, g := range groups {
		if len(g) > 3 || len(g) < 3 && i > 0 || g == "" || strings.Trim(g, "0123456789") != "" {
			return t, false
		}
	}
	if strings.Contains(frac, ",") {
		return t, false
	}
	return strings.Join(groups, "") + strings.TrimPrefix(t, whole), true
}

// satMul returns a*b, saturating at MaxBytes. Negative operands count as 0.
func satMul(a, b int64) Bytes {
	if a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo >= uint64(MaxBytes) {
		return MaxBytes
	}
	return Bytes(lo)
}

// satMul3 returns a*b*c, saturating at MaxBytes.
func satMul3(a, b, c int64) Bytes { return satMul(int64(satMul(a, b)), c) }

// satAdd returns the sum of xs, saturating at MaxBytes.
func satAdd(xs ...Bytes) Bytes {
	var s Bytes
	for _, x := range xs {
		if x >= MaxBytes-s {
			return MaxBytes
		}
		s += x
	}
	return s
}

// ceilDiv returns ⌈a/b⌉ for positive b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// roundUp rounds b up to a multiple of to; it saturates at MaxBytes.
func roundUp(b, to Bytes) Bytes {
	if to <= 1 || b <= 0 {
		return b
	}
	if b >= MaxBytes-to {
		return MaxBytes
	}
	return (b + to - 1) / to * to
}
