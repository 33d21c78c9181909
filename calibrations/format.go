//go:build !stdjson

package calibrations

// This file writes a calibration's canonical encoding without reflection.
// The canonical form is json.MarshalIndent's with a two-space indent and a
// final newline: the table's files are written in it, and an upload's id is
// the SHA-256 of it, so it must never change by a byte. format_test.go
// holds this writer to json.MarshalIndent, on every field of the type (a
// field added to planner.Calibration and not written here fails it) and
// under fuzzing; community's TestDigestPinned pins the digests of uploads.

import (
	"strconv"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
)

// Format returns the canonical encoding of c.
func Format(c *planner.Calibration) []byte {
	w := writer{b: make([]byte, 0, 2048)}
	w.calibration(c)
	if w.bad { // a NaN or an infinity, which JSON cannot hold
		return []byte("\n")
	}
	return append(w.b, '\n')
}

// writer appends indented JSON to b; depth is the open objects and arrays,
// first whether the innermost has no member yet. bad is set by a float
// JSON cannot hold.
type writer struct {
	b     []byte
	depth int
	first bool
	bad   bool
}

func (w *writer) newline() {
	w.b = append(w.b, '\n')
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

func (w *writer) open(b byte) {
	w.b = append(w.b, b)
	w.depth++
	w.first = true
}

func (w *writer) close(b byte) {
	w.depth--
	if !w.first {
		w.newline()
	}
	w.b = append(w.b, b)
	w.first = false
}

// elem starts an array element or an object member.
func (w *writer) elem() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
}

// key starts the member name, whose text needs no escaping.
func (w *writer) key(name string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, `": `...)
}

func (w *writer) str(name, v string) {
	w.key(name)
	w.b = jsonlite.AppendString(w.b, v)
}

func (w *writer) int(name string, v int64) {
	w.key(name)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *writer) boolean(name string, v bool) {
	w.key(name)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *writer) float(name string, v float64) {
	w.key(name)
	var ok bool
	w.b, ok = jsonlite.AppendFloat(w.b, v)
	w.bad = w.bad || !ok
}

// The omitempty fields' writers.
func (w *writer) strOmit(name, v string) {
	if v != "" {
		w.str(name, v)
	}
}

func (w *writer) intOmit(name string, v int64) {
	if v != 0 {
		w.int(name, v)
	}
}

func (w *writer) floatOmit(name string, v float64) {
	if v != 0 {
		w.float(name, v)
	}
}

func (w *writer) calibration(c *planner.Calibration) {
	w.open('{')
	w.str("schema", c.Schema)
	w.str("id", c.ID)
	w.str("gpu", c.GPU)
	w.strOmit("arch", c.Arch)
	w.intOmit("sm_count", int64(c.SMCount))
	w.str("driver", c.Driver)
	w.str("cuda", c.CUDA)
	w.str("platform", c.Platform)
	w.strOmit("source", c.Source)
	w.int("device_total_bytes", int64(c.DeviceTotal))
	w.int("context_bytes", int64(c.Context))
	w.intOmit("context_eager_bytes", int64(c.ContextEager))
	w.int("library_reserve_bytes", int64(c.LibraryReserve))
	w.intOmit("library_reserve_eager_bytes", int64(c.LibraryReserveEager))
	w.int("graph_exec_bytes", int64(c.GraphExec))
	if len(c.Comm) > 0 {
		w.list("comm", len(c.Comm), func(i int) { w.comm(&c.Comm[i]) })
	}
	w.key("vmm")
	w.vmm(&c.VMM)
	w.key("provenance")
	w.provenance(&c.Provenance)
	w.close('}')
}

// list writes the member name as an array of n elements, each written by
// elem.
func (w *writer) list(name string, n int, elem func(i int)) {
	w.key(name)
	w.open('[')
	for i := range n {
		w.elem()
		elem(i)
	}
	w.close(']')
}

func (w *writer) comm(cc *planner.CommCost) {
	w.open('{')
	w.int("group_ranks", int64(cc.GroupRanks))
	w.int("bytes", int64(cc.Bytes))
	w.close('}')
}

func (w *writer) vmm(v *planner.VMM) {
	w.open('{')
	w.boolean("supported", v.Supported)
	w.int("granularity_bytes", int64(v.Granularity))
	w.boolean("posix_fd_export", v.POSIXFDExport)
	for _, ls := range []struct {
		name string
		l    []planner.Latency
	}{{"commit", v.Commit}, {"decommit", v.Decommit}} {
		if len(ls.l) > 0 {
			w.list(ls.name, len(ls.l), func(i int) { w.latency(&ls.l[i]) })
		}
	}
	w.close('}')
}

func (w *writer) latency(l *planner.Latency) {
	w.open('{')
	w.int("chunk_bytes", int64(l.Chunk))
	w.floatOmit("p50_us", l.P50us)
	w.floatOmit("p90_us", l.P90us)
	w.floatOmit("mean_us", l.MeanUs)
	w.close('}')
}

func (w *writer) provenance(p *planner.Provenance) {
	w.open('{')
	w.str("method", p.Method)
	w.str("date", p.Date)
	w.strOmit("machine", p.Machine)
	w.strOmit("command", p.Command)
	w.strOmit("notes", p.Notes)
	w.strOmit("uploader", p.Uploader)
	w.strOmit("tool", p.Tool)
	w.intOmit("runs", int64(p.Runs))
	w.floatOmit("spread", p.Spread)
	w.close('}')
}
