package calc

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// This file formats the figures a person reads: whole numbers with
// thousands separators, and sizes in MiB with their GiB beside them once
// the MiB figure gets long. The page's script prints the view's integers
// with Intl.NumberFormat('en-US'), which groups them the same way.

// gibFrom is the size, in MiB, from which a figure in MiB is also given in GiB.
const gibFrom = 10 * 1024

// Group formats n with a comma between groups of three digits: "143,771",
// as the planner's own sentences do.
func Group(n int64) string { return planner.Grouped(n) }

// GiB returns mib in GiB, to a tenth, in parentheses ("(140.4 GiB)"), or ""
// for a figure short enough to read in MiB alone.
func GiB(mib int64) string {
	if mib < gibFrom && mib > -gibFrom {
		return ""
	}
	s := strconv.FormatFloat(float64(mib)/1024, 'f', 1, 64)
	return "(" + strings.TrimSuffix(s, ".0") + " GiB)"
}

// Size formats a figure in MiB for a sentence: "143,771 MiB (140.4 GiB)",
// "8,192 MiB".
func Size(mib int64) string {
	if g := GiB(mib); g != "" {
		return Group(mib) + " MiB " + g
	}
	return Group(mib) + " MiB"
}

// sizeOf is Size of b's whole MiB.
func sizeOf(b planner.Bytes) string { return Size(b.MiB()) }

// groupInt is Group of an int.
func groupInt(n int) string { return Group(int64(n)) }

// plural returns one when n is 1 and many otherwise.
func plural(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return one
	}
	return many
}

// tokens names a number of tokens: "1 token", "16 tokens".
func tokens(n int) string { return groupInt(n) + " " + plural(int64(n), "token", "tokens") }
