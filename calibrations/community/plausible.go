package community

import (
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// Ranges a measurement must fall in. A CUDA context has cost 0.3–1.8 GiB on
// every card measured (the H200 under Linux, the RTX 5090 under WSL2), and
// the libraries' reserve up to 4.3 GiB; the bounds are wide around that.
const (
	minDevice  = 1 * planner.GiB
	minContext = 16 * planner.MiB
	maxContext = 8 * planner.GiB
	maxLibrary = 16 * planner.GiB
	minGran    = 4 << 10
	maxLatency = 10e6 // µs: ten seconds
)

// plausible returns every reason c cannot be a real measurement that
// calibrations.Validate does not already give.
func plausible(c *planner.Calibration) []Reason {
	var rs []Reason
	add := func(field, format string, args ...any) {
		rs = append(rs, Reason{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Source != "" && c.Source != planner.CalibrationMeasured {
		add("source", "%q: an upload is a measurement (leave source out or say %q)", c.Source, planner.CalibrationMeasured)
	}
	if c.Provenance.Method != "gpuagent calibrate" {
		add("provenance.method", "%q: uploads are what `gpuagent calibrate` wrote", c.Provenance.Method)
	}
	if !isCUDAVersion(c.CUDA) {
		add("cuda", "%q, want a version such as 13.0", c.CUDA)
	}
	checkBytes(c, add)
	checkVMM(&c.VMM, c.DeviceTotal, add)
	checkModel(c, add)
	checkIdentifying(c, add)
	checkNames(c, add)
	return rs
}

type adder func(field, format string, args ...any)

func checkBytes(c *planner.Calibration, add adder) {
	if c.DeviceTotal < minDevice {
		add("device_total_bytes", "%s is less than %s: no CUDA GPU is that small", c.DeviceTotal, minDevice)
	}
	if c.Context < minContext || c.Context > maxContext {
		add("context_bytes", "%s is outside [%s, %s]", c.Context, minContext, maxContext)
	}
	if c.ContextEager != 0 && (c.ContextEager < minContext || c.ContextEager > maxContext) {
		add("context_eager_bytes", "%s is outside [%s, %s]", c.ContextEager, minContext, maxContext)
	}
	for _, f := range []struct {
		name string
		v    planner.Bytes
	}{{"library_reserve_bytes", c.LibraryReserve}, {"library_reserve_eager_bytes", c.LibraryReserveEager}} {
		if f.v > maxLibrary {
			add(f.name, "%s is more than %s", f.v, maxLibrary)
		}
	}
	if c.Context+c.LibraryReserve >= c.DeviceTotal {
		add("library_reserve_bytes", "context %s + library reserve %s leave nothing of the device's %s",
			c.Context, c.LibraryReserve, c.DeviceTotal)
	}
	if c.GraphExec > c.DeviceTotal/16 {
		add("graph_exec_bytes", "%s is more than a sixteenth of the device", c.GraphExec)
	}
}

func checkVMM(v *planner.VMM, total planner.Bytes, add adder) {
	if !v.Supported {
		if len(v.Commit)+len(v.Decommit) > 0 {
			add("vmm.supported", "false, yet commit latencies were measured")
		}
		return
	}
	if v.Granularity < minGran {
		add("vmm.granularity_bytes", "%d is below %d", v.Granularity, minGran)
	}
	for _, ls := range calibrations.LatencyLists(v) {
		for i, l := range ls.List {
			field := func() string { return fmt.Sprintf("%s[%d]", ls.Name, i) }
			switch {
			case slices.ContainsFunc(ls.List[:i], func(m planner.Latency) bool { return m.Chunk == l.Chunk }):
				add(field()+".chunk_bytes", "%d appears twice", l.Chunk)
			case l.Chunk > total:
				add(field()+".chunk_bytes", "%s is larger than the device", l.Chunk)
			case l.P50us > maxLatency || l.P90us > maxLatency || l.MeanUs > maxLatency:
				add(field(), "a latency over ten seconds")
			case l.P50us < 0.1 && l.MeanUs < 0.1:
				add(field(), "latency below 0.1 µs: not a driver call")
			}
		}
	}
}

// checkModel compares the device total with what the card is known to
// report. The known total is nvidia-smi's; CUDA's own total is up to a few
// hundred MiB lower (the H200 here: 615 MiB, 0.4 %), and ECC, where a card
// can turn it off, moves it by 6.25 %: so a total up to 8 % below or 1 %
// above the known one is consistent.
func checkModel(c *planner.Calibration, add adder) {
	g, ok := Known(c.GPU)
	if !ok {
		return
	}
	known := float64(g.TotalMiB) * float64(planner.MiB)
	if got := float64(c.DeviceTotal); got < 0.92*known || got > 1.01*known {
		add("device_total_bytes", "%s for a %s, which reports %d MiB (%s)", c.DeviceTotal, g.Name, g.TotalMiB, g.Source)
	}
}

func checkIdentifying(c *planner.Calibration, add adder) {
	p := &c.Provenance
	for _, f := range []struct{ name, v string }{
		{"gpu", c.GPU}, {"driver", c.Driver}, {"provenance.machine", p.Machine}, {"provenance.command", p.Command},
		{"provenance.notes", p.Notes}, {"provenance.uploader", p.Uploader}, {"provenance.tool", p.Tool},
	} {
		for _, id := range identifying {
			if id.match(f.v) {
				add(f.name, "holds what looks like %s; uploads carry nothing that identifies a machine or a person", id.what)
				break
			}
		}
	}
}

// hasMarkup reports whether s holds what no device, driver or architecture
// name holds and a page would have to escape: angle brackets and control
// characters ([<>\x00-\x1f\x7f]). Pages
// escape every upload's text anyway; refusing these names says so at once
// rather than showing a card called "<script>".
func hasMarkup(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f || b == '<' || b == '>' {
			return true
		}
	}
	return false
}

func checkNames(c *planner.Calibration, add adder) {
	for _, f := range []struct{ name, v string }{{"gpu", c.GPU}, {"driver", c.Driver}, {"arch", c.Arch}} {
		switch why := lookalike(f.v); {
		case why != "":
			add(f.name, "%q %s", f.v, why)
		case hasMarkup(f.v):
			add(f.name, "%q holds markup or control characters, which no device reports", f.v)
		case len(f.v) > 96:
			add(f.name, "%d bytes: longer than any device reports", len(f.v))
		}
	}
}

// lazy returns expr compiled on first use. A Workers request starts a
// fresh instance, which compiled all of these at start (4.5 % of its start
// in a profile), though only an upload uses them.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
