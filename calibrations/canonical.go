//go:build !stdjson

package calibrations

// This file lets decode.go's reader tell, as it reads, whether a document
// is already the canonical encoding Format would write: the same keys in
// the same order, omitempty members left out exactly when they are zero,
// every string, integer and float spelled as Format spells it (an escape
// only where Format writes one, and as it writes it), and the
// indentation of json.MarshalIndent with two spaces and a final newline.
// An upload as `gpuagent calibrate` wrote it is canonical, and a server
// that knows so stores the bytes it was sent rather than writing them
// again (ParseCanonical). Each rule here only ever clears the reader's
// canon flag; a document the rules miss is written again by Format, at
// the old cost, so the rules must be sufficient, not complete.
// canonical_test.go holds them to Format under fuzzing.

import (
	"bytes"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
)

// The members of each object, in the order Format writes them.
var (
	calibrationKeys = []string{"schema", "id", "gpu", "arch", "sm_count", "driver", "cuda", "platform", "source",
		"device_total_bytes", "context_bytes", "context_eager_bytes", "library_reserve_bytes",
		"library_reserve_eager_bytes", "graph_exec_bytes", "comm", "vmm", "provenance"}
	commKeys       = []string{"group_ranks", "bytes"}
	vmmKeys        = []string{"supported", "granularity_bytes", "posix_fd_export", "commit", "decommit"}
	latencyKeys    = []string{"chunk_bytes", "p50_us", "p90_us", "mean_us"}
	provenanceKeys = []string{"method", "date", "machine", "command", "notes", "uploader", "tool", "runs", "spread"}
)

// bit returns the bit of the i-th member when on.
func bit(i int, on bool) uint32 {
	if on {
		return 1 << i
	}
	return 0
}

// The members Format leaves out of each object (its omitempty fields that
// are zero), a bit each by their place in the lists above.
func calibrationOmitted(c *planner.Calibration) uint32 {
	return bit(3, c.Arch == "") | bit(4, c.SMCount == 0) | bit(8, c.Source == "") | bit(11, c.ContextEager == 0) |
		bit(13, c.LibraryReserveEager == 0) | bit(15, len(c.Comm) == 0)
}

func vmmOmitted(v *planner.VMM) uint32 {
	return bit(3, len(v.Commit) == 0) | bit(4, len(v.Decommit) == 0)
}

func latencyOmitted(l *planner.Latency) uint32 {
	return bit(1, l.P50us == 0) | bit(2, l.P90us == 0) | bit(3, l.MeanUs == 0)
}

func provenanceOmitted(p *planner.Provenance) uint32 {
	return bit(2, p.Machine == "") | bit(3, p.Command == "") | bit(4, p.Notes == "") | bit(5, p.Uploader == "") |
		bit(6, p.Tool == "") | bit(7, p.Runs == 0) | bit(8, p.Spread == 0)
}

// plainDecimal reports whether s, a JSON number, is spelled as Format
// spells the float it reads as, judged from the text alone: no exponent,
// no trailing zero in a fraction, at most 15 significant digits, and not
// below 1e-6 (where Format writes an exponent). Distinct decimals of 15
// digits or fewer read as distinct floats (a float64 holds 15 decimal
// digits), so the shortest digits that read back as the float, which
// Format writes, are s's own. It may report false for a number Format
// spells so; the float is then formatted and compared.
func plainDecimal(s []byte) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	whole, frac, dot := bytes.Cut(s, []byte("."))
	if len(whole) == 0 || bytes.ContainsAny(s, "eE") || dot && (len(frac) == 0 || frac[len(frac)-1] == '0') {
		return false
	}
	if string(whole) != "0" {
		return len(whole)+len(frac) <= 15
	}
	digits := len(bytes.TrimLeft(frac, "0"))
	return digits > 0 && digits <= 15 && len(frac)-digits <= 5
}

// written clears r.canon unless the members read, got, are those Format
// writes: every one in keys but the omitted.
func (r *reader) written(got uint32, keys []string, omitted uint32) {
	r.canon = r.canon && got == (1<<len(keys)-1)&^omitted
}

// canonicalSpace reports whether the run of space from start to r.i is
// what MarshalIndent writes between the tokens around it: nothing before
// the document, one space after a colon, a newline and two spaces for each
// object or array open before a member, an element and a closing bracket
// (no object or array is empty in a canonical document), one newline at
// the end, and nothing anywhere else.
func (r *reader) canonicalSpace(start int) bool {
	if start == 0 {
		return r.i == 0
	}
	if r.i == len(r.data) {
		return string(r.data[start:r.i]) == "\n" && r.data[start-1] == '}' && r.depth == 0
	}
	prev, next := tokenClass[r.data[start-1]], tokenClass[r.data[r.i]]
	switch {
	case start == r.i: // the common case: no space, as between a value and a comma
		return prev < tokenColon && next != tokenCloser
	case prev == tokenColon:
		return r.i-start == 1 && r.data[start] == ' '
	case next == tokenCloser:
		return prev != tokenOpener && indented(r.data[start:r.i], r.depth-1)
	case prev >= tokenOpener:
		return indented(r.data[start:r.i], r.depth)
	}
	return false
}

// indent is the space before a line at each depth, up to the deepest a
// calibration goes and more.
const indent = "\n                                "

// indented reports whether run is a newline and depth indents of two
// spaces.
func indented(run []byte, depth int) bool {
	return depth >= 0 && 1+2*depth <= len(indent) && string(run) == indent[:1+2*depth]
}

// The classes of bytes between tokens, by what canonicalSpace asks of the
// space around them; the order matters (tokenColon and above want space
// after them).
const (
	tokenOther = iota
	tokenSpace
	tokenCloser // } ]
	tokenColon
	tokenOpener // { [ and, alike for what follows it, the comma
)

var tokenClass = func() (t [256]uint8) {
	for _, b := range " \t\n\r" {
		t[b] = tokenSpace
	}
	t['}'], t[']'], t[':'], t['{'], t['['], t[','] = tokenCloser, tokenCloser, tokenColon, tokenOpener, tokenOpener, tokenOpener
	return t
}()

// The classes of a string's bytes: plain ones stand for themselves; the
// others end a string, begin an escape, are refused, or are what Format
// escapes (escapedByFormat).
const (
	strPlain = iota
	strOther
)

var strClass = func() (t [256]uint8) {
	for b := range t {
		if b < 0x20 || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' || b == 0xe2 {
			t[b] = strOther
		}
	}
	return t
}()

// escapedByFormat reports whether the byte at data[i], in a string, starts
// what Format writes as an escape: '<', '>' and '&' (as encoding/json
// escapes HTML), or U+2028 and U+2029 (E2 80 A8 and E2 80 A9).
func escapedByFormat(data []byte, i int) bool {
	switch data[i] {
	case '<', '>', '&':
		return true
	case 0xe2:
		return i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xa8 || data[i+2] == 0xa9)
	}
	return false
}

// canonicalEscape reports whether esc, an escape in a string, is what
// Format writes for text, what esc stands for: \" and \\, the short
// escapes of control characters, \u00xx in lowercase for the others, and
// \u003c, \u003e, \u0026, \u2028 and \u2029. Any other is not.
func canonicalEscape(esc, text []byte) bool {
	var buf [16]byte
	q := jsonlite.AppendString(buf[:0], string(text))
	return string(q[1:len(q)-1]) == string(esc)
}
