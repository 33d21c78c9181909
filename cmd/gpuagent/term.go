package main

// This file is what serve prints of strings it did not write: a model's
// name or a calibration's id from the plan file, the device's name, a
// layout, a client's lease name or error in the log. Each is escaped, so it
// cannot move the cursor, recolour or forge lines of the terminal it is
// printed on, and cut, so a 100 KB model name is not printed whole.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printed lengths, in bytes as printed (escapes included).
const (
	maxName = 256  // one name in an announcement
	maxLine = 1024 // one line of an error, a report or the log
)

// clip returns s with control characters and invalid UTF-8 escaped as Go
// escapes them, cut to at most n printed bytes and, when cut, marked with
// how many bytes of s it left out.
func clip(s string, n int) string {
	if q := strconv.QuoteToGraphic(s); len(q)-2 <= n {
		return q[1 : len(q)-1]
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		q := strconv.QuoteToGraphic(s[i : i+size])
		if b.Len()+len(q)-2 > n {
			fmt.Fprintf(&b, "… (%d bytes more)", len(s)-i)
			break
		}
		b.WriteString(q[1 : len(q)-1])
		i += size
	}
	return b.String()
}

// clipLines is clip of each line of s, at most maxLine bytes each.
func clipLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clip(l, maxLine)
	}
	return strings.Join(lines, "\n")
}

// printable returns s escaped and cut to maxName bytes.
func printable(s string) string { return clip(s, maxName) }
