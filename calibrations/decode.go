//go:build !stdjson

package calibrations

// This file decodes the calibration documents that are written the way
// Format writes them, or close to it, without encoding/json: an upload's
// server spent a fifth of its CPU in encoding/json's reflection. fastDecode
// reads a strict subset of JSON — object keys spelled exactly as the
// schema's fields, each at most once, strings without surrogate escapes or
// invalid UTF-8, integers written as integers, no nulls, nothing after the
// object — and declines everything else, which Parse then decodes with
// encoding/json as before, with its errors. Within the subset the result is
// the one encoding/json gives (decode_test.go holds the two together under
// fuzzing), so the fast path changes no upload's outcome, only its cost.
// While it reads, it also notes whether the document is already in the
// canonical form, byte for byte as Format would write it (canonical.go): an
// upload as `gpuagent calibrate` wrote it is, and then its canonical
// document need not be written again. The worker's build decodes by
// encoding/json alone (codec_stdjson.go).

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
)

// fastDecode decodes data into c and reports whether it could (when it
// could not, c is partly written and must be discarded), and whether data
// is the canonical encoding of c: Format(c) would write data byte for
// byte. It may report false for a canonical document, never true for
// another.
func fastDecode(data []byte, c *planner.Calibration) (ok, canonical bool) {
	r := reader{data: data, canon: true, spaced: -1}
	r.calibration(c)
	r.space()
	ok = !r.bad && r.i == len(r.data)
	return ok, ok && r.canon
}

// calibration reads the document's object into c.
func (r *reader) calibration(c *planner.Calibration) {
	got := r.object(calibrationKeys, func(k []byte) bool {
		switch string(k) {
		case "schema":
			c.Schema = r.str()
		case "id":
			c.ID = r.str()
		case "gpu":
			c.GPU = r.str()
		case "arch":
			c.Arch = r.str()
		case "sm_count":
			c.SMCount = int(r.int(strconv.IntSize))
		case "driver":
			c.Driver = r.str()
		case "cuda":
			c.CUDA = r.str()
		case "platform":
			c.Platform = r.str()
		case "source":
			c.Source = r.str()
		default:
			return r.figures(c, k)
		}
		return true
	})
	r.written(got, calibrationKeys, calibrationOmitted(c))
}

// figures reads the member k of a calibration's figures and reports
// whether k is one.
func (r *reader) figures(c *planner.Calibration, k []byte) bool {
	switch string(k) {
	case "device_total_bytes":
		c.DeviceTotal = r.bytes()
	case "context_bytes":
		c.Context = r.bytes()
	case "context_eager_bytes":
		c.ContextEager = r.bytes()
	case "library_reserve_bytes":
		c.LibraryReserve = r.bytes()
	case "library_reserve_eager_bytes":
		c.LibraryReserveEager = r.bytes()
	case "graph_exec_bytes":
		c.GraphExec = r.bytes()
	case "comm":
		c.Comm = list(r, r.comm)
	case "vmm":
		r.vmm(&c.VMM)
	case "provenance":
		r.provenance(&c.Provenance)
	default:
		return false
	}
	return true
}

func (r *reader) comm(cc *planner.CommCost) {
	got := r.object(commKeys, func(k []byte) bool {
		switch string(k) {
		case "group_ranks":
			cc.GroupRanks = int(r.int(strconv.IntSize))
		case "bytes":
			cc.Bytes = r.bytes()
		default:
			return false
		}
		return true
	})
	r.written(got, commKeys, 0)
}

func (r *reader) vmm(v *planner.VMM) {
	got := r.object(vmmKeys, func(k []byte) bool {
		switch string(k) {
		case "supported":
			v.Supported = r.boolean()
		case "granularity_bytes":
			v.Granularity = r.bytes()
		case "posix_fd_export":
			v.POSIXFDExport = r.boolean()
		case "commit":
			v.Commit = list(r, r.latency)
		case "decommit":
			v.Decommit = list(r, r.latency)
		default:
			return false
		}
		return true
	})
	r.written(got, vmmKeys, vmmOmitted(v))
}

func (r *reader) latency(l *planner.Latency) {
	got := r.object(latencyKeys, func(k []byte) bool {
		switch string(k) {
		case "chunk_bytes":
			l.Chunk = r.bytes()
		case "p50_us":
			l.P50us = r.float()
		case "p90_us":
			l.P90us = r.float()
		case "mean_us":
			l.MeanUs = r.float()
		default:
			return false
		}
		return true
	})
	r.written(got, latencyKeys, latencyOmitted(l))
}

func (r *reader) provenance(p *planner.Provenance) {
	got := r.object(provenanceKeys, func(k []byte) bool {
		switch string(k) {
		case "method":
			p.Method = r.str()
		case "date":
			p.Date = r.str()
		case "machine":
			p.Machine = r.str()
		case "command":
			p.Command = r.str()
		case "notes":
			p.Notes = r.str()
		case "uploader":
			p.Uploader = r.str()
		case "tool":
			p.Tool = r.str()
		case "runs":
			p.Runs = int(r.int(strconv.IntSize))
		case "spread":
			p.Spread = r.float()
		default:
			return false
		}
		return true
	})
	r.written(got, provenanceKeys, provenanceOmitted(p))
}

// reader is a position in a document; bad is set at the first byte outside
// the subset, after which every method does nothing. canon is cleared at
// the first byte Format would not have written there; depth is the objects
// and arrays open, and spaced where the last run of space ended.
type reader struct {
	data   []byte
	i      int
	bad    bool
	canon  bool
	depth  int
	spaced int
}

func (r *reader) space() {
	start, d, i := r.i, r.data, r.i
	for i < len(d) && tokenClass[d[i]] == tokenSpace {
		i++
	}
	r.i = i
	if start != r.spaced {
		r.spaced = i
		r.canon = r.canon && r.canonicalSpace(start)
	}
}

// byte_ consumes b after any space, or marks the reader bad.
func (r *reader) byte_(b byte) {
	r.space()
	if r.bad || r.i >= len(r.data) || r.data[r.i] != b {
		r.bad = true
		return
	}
	r.i++
}

// peek returns the next byte after any space, 0 at the end.
func (r *reader) peek() byte {
	r.space()
	if r.bad || r.i >= len(r.data) {
		return 0
	}
	return r.data[r.i]
}

// object reads an object whose members field decodes; keys are the
// members it may have, in the order Format writes them, and field decodes
// each (it reports whether it knows the key). A key not in keys, or given
// twice, is outside the subset. It returns the keys read, a bit each by
// its place in keys; a key out of that order clears r.canon.
func (r *reader) object(keys []string, field func(key []byte) bool) uint32 {
	r.byte_('{')
	r.depth++
	defer func() { r.depth-- }()
	if r.peek() == '}' {
		r.i++
		return 0
	}
	var got uint32
	for !r.bad {
		k := r.key()
		i := slices.Index(keys, string(k))
		if r.bad || i < 0 || got&(1<<i) != 0 || !field(k) {
			r.bad = true
			return got
		}
		r.canon = r.canon && got>>i == 0
		got |= 1 << i
		if r.peek() != ',' {
			break
		}
		r.i++
	}
	r.byte_('}')
	return got
}

// key reads an object key without escapes, and its colon.
func (r *reader) key() []byte {
	r.byte_('"')
	if r.bad {
		return nil
	}
	start := r.i
	for r.i < len(r.data) && r.data[r.i] != '"' {
		if b := r.data[r.i]; b < 0x20 || b == '\\' || b >= utf8.RuneSelf {
			r.bad = true
		}
		r.i++
	}
	k := r.data[start:min(r.i, len(r.data))]
	r.byte_('"')
	r.byte_(':')
	return k
}

// str reads a string, unescaping it. A string Format would write
// otherwise (it has an escape, or a byte Format escapes) clears r.canon.
func (r *reader) str() string {
	r.byte_('"')
	if r.bad {
		return ""
	}
	start := r.i
	for r.i < len(r.data) {
		b := r.data[r.i]
		if strClass[b] == strPlain {
			r.i++
			continue
		}
		switch {
		case b == '"':
			s := r.data[start:r.i]
			r.i++
			if !utf8.Valid(s) {
				r.bad = true
			}
			return string(s)
		case b == '\\':
			return r.escaped(start)
		case b < 0x20:
			r.bad = true
			return ""
		}
		r.canon = r.canon && !escapedByFormat(r.data, r.i)
		r.i++
	}
	r.bad = true
	return ""
}

// escaped finishes a string from start whose escape begins at r.i.
func (r *reader) escaped(start int) string {
	out := append([]byte(nil), r.data[start:r.i]...)
	for !r.bad && r.i < len(r.data) {
		b := r.data[r.i]
		switch {
		case b == '"':
			r.i++
			if !utf8.Valid(out) {
				r.bad = true
			}
			return string(out)
		case b == '\\':
			at, n := r.i, len(out)
			out = r.escape(out)
			r.canon = r.canon && !r.bad && canonicalEscape(r.data[at:r.i], out[n:])
		case b < 0x20:
			r.bad = true
		default:
			r.canon = r.canon && !escapedByFormat(r.data, r.i)
			out = append(out, b)
			r.i++
		}
	}
	r.bad = true
	return ""
}

// escape appends the escape sequence at r.i, unescaped, to out.
func (r *reader) escape(out []byte) []byte {
	if r.i+1 >= len(r.data) {
		r.bad = true
		return out
	}
	c := r.data[r.i+1]
	r.i += 2
	switch c {
	case '"', '\\', '/':
		return append(out, c)
	case 'b':
		return append(out, '\b')
	case 'f':
		return append(out, '\f')
	case 'n':
		return append(out, '\n')
	case 'r':
		return append(out, '\r')
	case 't':
		return append(out, '\t')
	case 'u':
		if r.i+4 > len(r.data) {
			break
		}
		v, err := strconv.ParseUint(string(r.data[r.i:r.i+4]), 16, 16)
		if err != nil || 0xd800 <= v && v < 0xe000 {
			break // a surrogate half: encoding/json pairs or replaces it
		}
		r.i += 4
		return utf8.AppendRune(out, rune(v))
	}
	r.bad = true
	return out
}

// number returns the text of a JSON number, and whether it is an integer
// (no fraction, no exponent).
func (r *reader) number() ([]byte, bool) {
	r.space()
	start := r.i
	d := r.data
	if r.i < len(d) && d[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(d) && d[r.i] == '0':
		r.i++
	case r.i < len(d) && '1' <= d[r.i] && d[r.i] <= '9':
		r.digits()
	default:
		r.bad = true
		return nil, false
	}
	integer := true
	if r.i < len(d) && d[r.i] == '.' {
		r.i++
		integer = false
		r.needDigits()
	}
	if r.i < len(d) && (d[r.i] == 'e' || d[r.i] == 'E') {
		r.i++
		integer = false
		if r.i < len(d) && (d[r.i] == '+' || d[r.i] == '-') {
			r.i++
		}
		r.needDigits()
	}
	return d[start:r.i], integer
}

func (r *reader) digits() int {
	n := 0
	for r.i < len(r.data) && '0' <= r.data[r.i] && r.data[r.i] <= '9' {
		r.i++
		n++
	}
	return n
}

func (r *reader) needDigits() {
	if r.digits() == 0 {
		r.bad = true
	}
}

// int reads an integer that fits in bits bits. Format writes -0 as 0.
func (r *reader) int(bits int) int64 {
	s, integer := r.number()
	v, err := strconv.ParseInt(string(s), 10, bits)
	if r.bad || !integer || err != nil {
		r.bad = true
	}
	r.canon = r.canon && (v != 0 || len(s) == 1)
	return v
}

func (r *reader) bytes() planner.Bytes { return planner.Bytes(r.int(64)) }

// float reads a float; one Format would write otherwise clears r.canon.
func (r *reader) float() float64 {
	s, _ := r.number()
	v, err := strconv.ParseFloat(string(s), 64)
	if r.bad || err != nil {
		r.bad = true
	}
	if r.canon && !plainDecimal(s) {
		var buf [32]byte
		f, _ := jsonlite.AppendFloat(buf[:0], v)
		r.canon = string(f) == string(s)
	}
	return v
}

func (r *reader) boolean() bool {
	r.space()
	for _, lit := range []string{"true", "false"} {
		if len(r.data)-r.i >= len(lit) && string(r.data[r.i:r.i+len(lit)]) == lit {
			r.i += len(lit)
			return lit == "true"
		}
	}
	r.bad = true
	return false
}

// list reads an array of objects, each decoded by elem into a new element.
func list[T any](r *reader, elem func(*T)) []T {
	r.byte_('[')
	r.depth++
	defer func() { r.depth-- }()
	if r.peek() == ']' {
		r.i++
		return []T{} // encoding/json decodes [] as an empty slice, not nil
	}
	// Each element is decoded in place: a variable handed to elem, a
	// function value, would be allocated for each.
	out := make([]T, 0, 8)
	for !r.bad {
		var zero T
		out = append(out, zero)
		elem(&out[len(out)-1])
		if r.peek() != ',' {
			break
		}
		r.i++
	}
	r.byte_(']')
	return out
}
