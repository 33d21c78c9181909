package calibrations

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/vramplan/vramplan/planner"
)

// Validate reports the first field of c that is missing or out of range.
func Validate(c *planner.Calibration) error {
	for _, check := range []func(*planner.Calibration) error{validateIdentity, validateBytes, validateVMM, validateProvenance} {
		if err := check(c); err != nil {
			return err
		}
	}
	return nil
}

func fieldErr(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
}

func validateIdentity(c *planner.Calibration) error {
	switch {
	case c.Schema != planner.CalibrationSchema:
		return fieldErr("schema", "%q, want %q", c.Schema, planner.CalibrationSchema)
	case len(c.ID) > 80 || !idPattern.MatchString(c.ID):
		return fieldErr("id", "%q must be lowercase letters, digits, '.' and '-'", c.ID)
	case c.GPU == "":
		return fieldErr("gpu", "missing")
	case c.Driver == "":
		return fieldErr("driver", "missing")
	case c.CUDA == "":
		return fieldErr("cuda", "missing")
	case !slices.Contains(platforms, c.Platform):
		return fieldErr("platform", "%q, want one of %v", c.Platform, platforms)
	case c.SMCount < 0 || c.SMCount > 1<<16:
		return fieldErr("sm_count", "%d out of range", c.SMCount)
	case c.Source != "" && !slices.Contains(sources, c.Source):
		return fieldErr("source", "%q, want one of %v", c.Source, sources)
	}
	return nil
}

// sources are the values of a calibration's source.
var sources = []string{planner.CalibrationMeasured, planner.CalibrationCommunity, planner.CalibrationEstimated}

const maxDevice = 1 << 50 // 1 PiB

func validateBytes(c *planner.Calibration) error {
	if c.DeviceTotal <= 0 || c.DeviceTotal > maxDevice {
		return fieldErr("device_total_bytes", "%d out of range (0, 1 PiB]", c.DeviceTotal)
	}
	for _, f := range []struct {
		name string
		v    planner.Bytes
	}{{"context_bytes", c.Context}, {"context_eager_bytes", c.ContextEager}, {"library_reserve_bytes", c.LibraryReserve},
		{"library_reserve_eager_bytes", c.LibraryReserveEager}, {"graph_exec_bytes", c.GraphExec}} {
		if f.v < 0 || f.v > c.DeviceTotal {
			return fieldErr(f.name, "%d out of range [0, device_total_bytes]", f.v)
		}
	}
	if c.Context == 0 {
		return fieldErr("context_bytes", "missing: every CUDA context costs memory")
	}
	return nil
}

func validateVMM(c *planner.Calibration) error {
	v := &c.VMM
	if !v.Supported {
		return nil
	}
	if g := v.Granularity; g <= 0 || bits.OnesCount64(uint64(g)) != 1 || g > planner.GiB {
		return fieldErr("vmm.granularity_bytes", "%d must be a power of two up to 1 GiB", g)
	}
	for _, ls := range LatencyLists(v) {
		for i := range ls.List {
			if err := validateLatency(ls.Name, i, &ls.List[i], v.Granularity); err != nil {
				return err
			}
		}
	}
	return nil
}

// A LatencyList is one of a VMM's lists of latencies and its field name.
type LatencyList struct {
	Name string // "vmm.commit" or "vmm.decommit"
	List []planner.Latency
}

// LatencyLists returns v's commit and decommit latencies, in that order.
func LatencyLists(v *planner.VMM) [2]LatencyList {
	return [2]LatencyList{{"vmm.commit", v.Commit}, {"vmm.decommit", v.Decommit}}
}

// validateLatency checks the latency l, the i-th of the list named list.
// The field is named only for an error: a valid upload writes none.
func validateLatency(list string, i int, l *planner.Latency, g planner.Bytes) error {
	field := func() string { return fmt.Sprintf("%s[%d]", list, i) }
	if l.Chunk <= 0 || l.Chunk%g != 0 {
		return fieldErr(field()+".chunk_bytes", "%d must be a positive multiple of the granularity", l.Chunk)
	}
	for _, v := range [...]float64{l.P50us, l.P90us, l.MeanUs} {
		if !(v >= 0 && v < 1e9) {
			return fieldErr(field(), "latency %v out of range [0, 1e9) µs", v)
		}
	}
	if l.P50us == 0 && l.MeanUs == 0 {
		return fieldErr(field(), "no statistic: want p50_us or mean_us")
	}
	if l.P90us != 0 && l.P90us < l.P50us {
		return fieldErr(field(), "p90_us %v below p50_us %v", l.P90us, l.P50us)
	}
	return nil
}

func validateProvenance(c *planner.Calibration) error {
	p := &c.Provenance
	switch {
	case p.Method == "":
		return fieldErr("provenance.method", "missing")
	case !datePattern.MatchString(p.Date):
		return fieldErr("provenance.date", "%q, want YYYY-MM-DD", p.Date)
	case p.Runs < 0 || p.Runs > 1000:
		return fieldErr("provenance.runs", "%d out of range [0, 1000]", p.Runs)
	case !(p.Spread >= 0 && p.Spread <= 100):
		return fieldErr("provenance.spread", "%v out of range [0, 100]", p.Spread)
	case p.Uncertainty < 0 || p.Uncertainty > c.DeviceTotal:
		return fieldErr("provenance.uncertainty_bytes", "%d out of range [0, device_total_bytes]", p.Uncertainty)
	}
	return nil
}
