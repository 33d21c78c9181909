//go:build !stdfmt

package printf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

type tier string

type size int64

func (s size) String() string { return fmt.Sprint(int64(s)/2, " half") }

type pair struct {
	A int
	B string
}

type failing struct{}

func (failing) Error() string { return "it failed" }

// TestLikeFmt holds Sprintf to fmt.Sprintf over the verbs, flags and
// operand kinds the package supports.
func TestLikeFmt(t *testing.T) {
	var nilErr error
	var nilPtr *pair
	cases := []struct {
		format string
		args   []any
	}{
		{"plain", nil}, {"100%%", nil}, {"%d", []any{42}}, {"%d %d", []any{-7, uint8(200)}},
		{"%6d|%-6d|%06d|%+d|%+06d", []any{42, 42, -42, 5, -5}}, {"%d", []any{size(10)}}, {"%v %s", []any{size(10), size(4)}},
		{"%s", []any{"x"}}, {"%q", []any{"a\"b\n\u00e9"}}, {"%q", []any{tier("t")}}, {"%10s|%-10s|", []any{"ab", "é"}},
		{"%-*s|", []any{7, "ab"}}, {"%*d", []any{5, 3}}, {"%.2s", []any{"héllo"}}, {"%v", []any{true}}, {"%t", []any{false}},
		{"%v", []any{1.5}}, {"%v", []any{1e21}}, {"%.v|%.1v|%.3v|%8.2v", []any{2.25, 2.25, 3.14159, 1234.5}}, {"%q|%+q|%+q|%q|%+q", []any{-77, -77, 0x4e16, int64(0x100000041), "é\n"}}, {"%*d|%*s|%-*d|%0*d|", []any{-6, 42, -4, "ab", -5, 7, -5, 7}}, {"%v", []any{float32(0.1)}}, {"%.2f", []any{3.14159}}, {"%.0f", []any{2.5}},
		{"%f", []any{1.0}}, {"%+12.2f|%12.2f", []any{3.5, -2.25}}, {"%.3g", []any{0.0001234}}, {"%.3g", []any{123456.0}},
		{"%g", []any{100000000.0}}, {"%v", []any{[]string{"a", "b"}}}, {"%q", []any{[]string{"a", "b"}}}, {"%d", []any{[]int{1, 2}}},
		{"%v", []any{[]tier{"x"}}}, {"%v", []any{[2]int{1, 2}}}, {"%v", []any{pair{1, "x"}}}, {"%v", []any{&pair{2, "y"}}},
		{"%v", []any{nilPtr}}, {"%v", []any{nil}}, {"%s", []any{nilErr}}, {"%v", []any{errors.New("e")}}, {"%s", []any{failing{}}},
		{"%q", []any{failing{}}}, {"%v", []any{[]size{2, 4}}}, {"%v", []any{[]any{1, "a", nil}}}, {"%d", []any{}},
		{"%d %s", []any{1}}, {"%d", []any{1, 2}}, {"%s", []any{3}}, {"%d", []any{"x"}}, {"%", nil},
		{"%8s|%-9s|%9d|%12d", []any{size(6), "tier", 123, int64(-1) << 40}}, {"%v", []any{[]string(nil)}}, {"%5v|", []any{[]int{1, 22}}},
		{"%v", []any{struct{ P *int }{}}}, {"%6.1f", []any{-0.04}}, {"%v %v", []any{int8(-3), uint64(1) << 63}},
		{"%010v|%010s|%06q|%05v|%05q", []any{"+0", "-1", "-1", true, 'x'}}, {"%08v|%08v|%08f|%+08v", []any{math.Inf(1), math.Inf(-1), math.NaN(), math.Inf(1)}},
		{"%08v|%08v", []any{[]int{-1, 2}, []string{"-1", "+2"}}}, {"%-08d|%+08d|%08.2f", []any{-5, 5, -1.5}},
		{"%.v|%.d|%5.0d|%+.0d|%.7d|%+.3d|%08.3d|%-8.4d|", []any{0, 0, 0, 0, -230, 5, -7, 42}}, {"%.20d|%.3v", []any{int64(-1) << 63, uint64(1) << 63}},
	}
	for _, c := range cases {
		want := fmt.Sprintf(c.format, c.args...)
		if got := Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q, %v) = %q, fmt says %q", c.format, c.args, got, want)
		}
	}
}

func TestErrorf(t *testing.T) {
	base := errors.New("base")
	err := Errorf("ctx %d: %w", 3, base)
	if err.Error() != "ctx 3: base" || !errors.Is(err, base) {
		t.Errorf("Errorf(%%w) = %v (Is base: %v), want ctx 3: base wrapping base", err, errors.Is(err, base))
	}
	other := errors.New("other")
	err = Errorf("%w and %w", base, other)
	if !errors.Is(err, base) || !errors.Is(err, other) || err.Error() != "base and other" {
		t.Errorf("Errorf with two %%w = %v, want both wrapped", err)
	}
	if err := Errorf("no wrap %v", base); errors.Unwrap(err) != nil || err.Error() != "no wrap base" {
		t.Errorf("Errorf(%%v) = %v, unwraps to %v; want no wrapping", err, errors.Unwrap(err))
	}
}

func TestFprintf(t *testing.T) {
	var b strings.Builder
	n, err := Fprintf(&b, "%-4s|%3d\n", "ab", 7)
	if want := fmt.Sprintf("%-4s|%3d\n", "ab", 7); b.String() != want || n != len(want) || err != nil {
		t.Errorf("Fprintf wrote %q, %d, %v; want %q", b.String(), n, err, want)
	}
	if _, err := Fprintf(errWriter{}, "x"); err == nil {
		t.Errorf("Fprintf to a failing writer returned no error")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func FuzzLikeFmt(f *testing.F) {
	f.Add("%d|%-5s|%q|%.2f", 3, "s", 1.5)
	f.Fuzz(func(t *testing.T, format string, n int, s string, x float64) {
		if !claimed(format) {
			return // verbs, flags and argument indexes the package does not claim
		}
		want := fmt.Sprintf(format, n, s, x)
		if strings.Contains(want, "%!") {
			return // a verb fmt refuses: the package's wording may differ
		}
		if got := Sprintf(format, n, s, x); got != want {
			t.Errorf("Sprintf(%q, %d, %q, %v) = %q, fmt says %q", format, n, s, x, got, want)
		}
	})
}

// claimed reports whether every verb of format is one the package claims
// to format as fmt does, without argument indexes or the # and space flags.
func claimed(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("-+0123456789.*", format[i]) >= 0 {
			i++
		}
		if i >= len(format) || strings.IndexByte("vsdqfFgt%", format[i]) < 0 {
			return false
		}
	}
	return true
}

// TestHugeWidth: a width or precision past fmt's bound of a million is
// ignored, as fmt refuses it, not padded without limit.
func TestHugeWidth(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []any
	}{
		{"%*d", []any{1 << 40, 1}}, {"%*d", []any{-(1 << 40), 1}}, {"%.*f", []any{1 << 40, 1.5}},
		{"%99999999999999999999d", []any{1}}, {"%.99999999999999999999f", []any{1.5}},
	} {
		if got := Sprintf(tc.format, tc.args...); len(got) > 64 {
			t.Errorf("Sprintf(%q, %v) is %d bytes long, want the width ignored", tc.format, tc.args, len(got))
		}
	}
}
