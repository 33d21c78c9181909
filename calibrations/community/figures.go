package community

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// Figure names. Latencies are "vmm.commit.<chunk bytes>.p50_us" and so on.
const (
	FigDeviceTotal    = "device_total_bytes"
	FigContext        = "context_bytes"
	FigContextEager   = "context_eager_bytes"
	FigLibrary        = "library_reserve_bytes"
	FigLibraryEager   = "library_reserve_eager_bytes"
	FigGraphExec      = "graph_exec_bytes"
	FigVMMSupported   = "vmm.supported"
	FigGranularity    = "vmm.granularity_bytes"
	FigPOSIXFDExport  = "vmm.posix_fd_export"
	figCommitPrefix   = "vmm.commit."
	figDecommitPrefix = "vmm.decommit."
)

// Charged are the figures a plan charges: the ones an outlier is judged by.
var Charged = []string{FigDeviceTotal, FigContext, FigContextEager, FigLibrary, FigLibraryEager}

// Figures returns the numbers of c that aggregation reads. A figure that
// was not measured (an eager reserve of 0, a statistic left out) is absent.
func Figures(c *planner.Calibration) map[string]float64 {
	f := make(map[string]float64, 9+3*(len(c.VMM.Commit)+len(c.VMM.Decommit)))
	f[FigDeviceTotal], f[FigContext], f[FigLibrary] = float64(c.DeviceTotal), float64(c.Context), float64(c.LibraryReserve)
	f[FigVMMSupported] = b2f(c.VMM.Supported)
	nonzero(f, FigContextEager, float64(c.ContextEager))
	nonzero(f, FigLibraryEager, float64(c.LibraryReserveEager))
	nonzero(f, FigGraphExec, float64(c.GraphExec))
	if c.VMM.Supported {
		f[FigGranularity], f[FigPOSIXFDExport] = float64(c.VMM.Granularity), b2f(c.VMM.POSIXFDExport)
		var names strings.Builder // every latency's three names, in one allocation
		names.Grow(3 * len("vmm.decommit.1099511627776.mean_us") * (len(c.VMM.Commit) + len(c.VMM.Decommit)))
		latencies(f, &names, figCommitPrefix, c.VMM.Commit)
		latencies(f, &names, figDecommitPrefix, c.VMM.Decommit)
	}
	return f
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func nonzero(f map[string]float64, name string, v float64) {
	if v != 0 {
		f[name] = v
	}
}

// latencies adds the figures of ls, named "<prefix><chunk bytes>.<stat>";
// the names are written into names and taken from it as it grows.
func latencies(f map[string]float64, names *strings.Builder, prefix string, ls []planner.Latency) {
	for _, l := range ls {
		for _, st := range [...]struct {
			suffix string
			v      float64
		}{{".p50_us", l.P50us}, {".p90_us", l.P90us}, {".mean_us", l.MeanUs}} {
			if st.v == 0 {
				continue
			}
			start := names.Len()
			names.WriteString(prefix)
			var digits [20]byte
			names.Write(strconv.AppendInt(digits[:0], int64(l.Chunk), 10))
			names.WriteString(st.suffix)
			f[names.String()[start:]] = st.v
		}
	}
}

// calibration builds a calibration's figures from medians by figure name:
// the inverse of Figures.
func calibration(c *planner.Calibration, med map[string]float64) {
	bytes := func(name string) planner.Bytes { return planner.Bytes(math.Round(med[name])) }
	c.DeviceTotal, c.Context, c.ContextEager = bytes(FigDeviceTotal), bytes(FigContext), bytes(FigContextEager)
	c.LibraryReserve, c.LibraryReserveEager, c.GraphExec = bytes(FigLibrary), bytes(FigLibraryEager), bytes(FigGraphExec)
	c.VMM = planner.VMM{Supported: med[FigVMMSupported] > 0.5}
	if !c.VMM.Supported {
		return
	}
	c.VMM.Granularity, c.VMM.POSIXFDExport = powerOfTwo(med[FigGranularity]), med[FigPOSIXFDExport] > 0.5
	c.VMM.Commit = latencyList(med, figCommitPrefix, c.VMM.Granularity)
	c.VMM.Decommit = latencyList(med, figDecommitPrefix, c.VMM.Granularity)
}

// powerOfTwo rounds v up to a power of two (a median of two granularities
// can fall between them).
func powerOfTwo(v float64) planner.Bytes {
	if v < 1 {
		return 2 * planner.MiB
	}
	return planner.Bytes(1) << bits.Len64(uint64(math.Ceil(v))-1)
}

func latencyList(med map[string]float64, prefix string, gran planner.Bytes) []planner.Latency {
	byChunk := map[planner.Bytes]*planner.Latency{}
	for name, v := range med {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		chunkText, stat, _ := strings.Cut(rest, ".")
		chunk, err := strconv.ParseInt(chunkText, 10, 64)
		if err != nil || chunk <= 0 || planner.Bytes(chunk)%gran != 0 {
			continue
		}
		l := byChunk[planner.Bytes(chunk)]
		if l == nil {
			l = &planner.Latency{Chunk: planner.Bytes(chunk)}
			byChunk[l.Chunk] = l
		}
		setStat(l, stat, round1(v))
	}
	return sortedLatencies(byChunk)
}

func setStat(l *planner.Latency, stat string, v float64) {
	switch stat {
	case "p50_us":
		l.P50us = v
	case "p90_us":
		l.P90us = v
	case "mean_us":
		l.MeanUs = v
	}
}

func sortedLatencies(byChunk map[planner.Bytes]*planner.Latency) []planner.Latency {
	out := make([]planner.Latency, 0, len(byChunk))
	for _, l := range byChunk {
		if l.P90us != 0 && l.P90us < l.P50us {
			l.P90us = l.P50us // medians of separate statistics need not be ordered
		}
		if l.P50us != 0 || l.MeanUs != 0 {
			out = append(out, *l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Chunk < out[j].Chunk })
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// describe renders a figure's value for a reason.
func describe(name string, v float64) string {
	if strings.HasSuffix(name, "_bytes") {
		return fmt.Sprintf("%.1f MiB", v/float64(planner.MiB))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
