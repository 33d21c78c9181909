package calibrate

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

// assemble builds the document from a context probe's report, a library
// probe's, the VMM probe's and the figures (context, context eager,
// library, library eager, in that order).
func assemble(o Options, dev, lib, v Report, figs []Figure) *Calibration {
	in := dev.Info
	cuda := fmt.Sprintf("%d.%d", in.DriverVersion/1000, in.DriverVersion%1000/10)
	platform := platform()
	c := &Calibration{
		Schema: Schema, ID: ID(in.Name, platform, cuda), GPU: in.Name,
		Arch: fmt.Sprintf("sm_%d%d", in.CCMajor, in.CCMinor), SMCount: in.SMCount,
		Driver: driverVersion(in.DriverVersion), CUDA: cuda, Platform: platform,
		DeviceTotal: planner.Bytes(in.TotalBytes),
		Context:     planner.Bytes(figs[0].Median), ContextEager: planner.Bytes(figs[1].Median),
		LibraryReserve: planner.Bytes(figs[2].Median), LibraryReserveEager: planner.Bytes(figs[3].Median),
		VMM: VMM{Supported: in.VMM, Granularity: planner.Bytes(v.Granularity), POSIXFDExport: v.POSIXFD, Commit: v.Commit, Decommit: v.Decommit},
	}
	c.Provenance = Provenance{Method: "gpuagent calibrate", Date: o.Date, Machine: o.Machine, Command: o.Command, Notes: notes(o, lib, figs),
		Tool: tool(), Runs: o.Runs, Spread: maxSpread(figs)}
	if c.Provenance.Machine == "" {
		c.Provenance.Machine = fmt.Sprintf("%s (%d MiB), %s", in.Name, in.TotalBytes>>20, kernel())
	}
	return c
}

// ID returns the calibration id for a device name, platform and CUDA
// version: "NVIDIA H200", "linux", "13.0" give "h200-linux-cuda13.0".
func ID(gpu, platform, cuda string) string {
	name := strings.ToLower(gpu)
	for _, w := range []string{"nvidia", "geforce"} {
		name = strings.ReplaceAll(name, w, "")
	}
	name = regexp.MustCompile(`[^a-z0-9.]+`).ReplaceAllString(name, "")
	return fmt.Sprintf("%s-%s-cuda%s", name, platform, cuda)
}

// platform returns "wsl2" under WSL2, else GOOS ("linux", "windows").
func platform() string {
	if v, err := os.ReadFile("/proc/version"); err == nil && strings.Contains(strings.ToLower(string(v)), "microsoft") {
		return "wsl2"
	}
	return runtime.GOOS
}

func kernel() string {
	v, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return "Linux " + strings.TrimSpace(string(v))
}

// kernelModule finds the version in /proc/driver/nvidia/version, whose
// first line reads "NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 580.159.04 ..." or "... Open Kernel Module for x86_64  580.159.04 ...".
var kernelModule = regexp.MustCompile(`NVRM version:.*?\s(\d+\.\d+(?:\.\d+)?)\s`)

// driverVersion returns the kernel driver's version from
// /proc/driver/nvidia/version, or the driver API's CUDA version when that
// file is not there.
func driverVersion(cudaVersion int) string {
	v, _ := os.ReadFile("/proc/driver/nvidia/version")
	return parseDriverVersion(v, cudaVersion)
}

func parseDriverVersion(proc []byte, cudaVersion int) string {
	if m := kernelModule.FindSubmatch(proc); m != nil {
		return string(m[1])
	}
	return fmt.Sprintf("cuDriverGetVersion %d", cudaVersion)
}

func notes(o Options, lib Report, figs []Figure) string {
	var runs []string
	for _, f := range figs {
		runs = append(runs, fmt.Sprintf("%s %v (spread %.2f %%)", f.Name, mibs(f.Runs), 100*f.Spread))
	}
	return fmt.Sprintf("Medians of %d fresh processes per figure, CUDA_MODULE_LOADING unset (lazy) and EAGER. "+
		"context_bytes is device total minus cuMemGetInfo free right after the primary context is made current in a fresh process "+
		"with no other process on the GPU; the driver's total (device_total_bytes) already excludes what the driver reserves "+
		"before any process (nvidia-smi memory.reserved), so that is not in context_bytes either. "+
		"library_reserve_bytes is the drop in free memory across loading cuBLASLt and cuBLAS (%s) by dlopen, "+
		"creating one handle of each and the first GEMM of each of %d shapes (%s), operands allocated beforehand. "+
		"VMM latencies: %d rounds per chunk size through the VMM backend without hysteresis; decommit includes the event fence. "+
		"graph_exec_bytes was not measured. Runs in MiB: %s.",
		o.Runs, lib.BLAS, lib.GEMMs, shapeNames(), vmmRounds, strings.Join(runs, "; "))
}

func mibs(xs []backend.Bytes) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.1f", float64(x)/float64(backend.MiB))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func shapeNames() string {
	return "M in {1, 8, 512} x (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336)}, fp16 and bf16, fp32 accumulation"
}

// tool names this program's version and commit, as the build recorded them.
func tool() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gpuagent"
	}
	t := "gpuagent " + bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			t += " " + s.Value[:12]
		}
	}
	return t
}

// maxSpread is the largest spread of the figures' runs.
func maxSpread(figs []Figure) float64 {
	m := 0.0
	for _, f := range figs {
		m = max(m, f.Spread)
	}
	return math.Round(m*1e4) / 1e4
}
