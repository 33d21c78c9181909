package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
	"github.com/vramplan/vramplan/planner"
)

// fakeChild answers probes as an H200 would, with run-to-run noise.
func fakeChild(t *testing.T) func(string, []string) ([]byte, error) {
	n := 0
	return func(probe string, env []string) ([]byte, error) {
		n++
		eager := slices.Contains(env, "CUDA_MODULE_LOADING=EAGER")
		rep := Report{Info: cudamalloc.Info{Name: "NVIDIA H200", TotalBytes: 150754820096, SMCount: 132, CCMajor: 9, DriverVersion: 13000, VMM: true}}
		switch probe {
		case ProbeContext:
			rep.Context = 500*backend.MiB + backend.Bytes(n%3)*backend.MiB
			if eager {
				rep.Context += 100 * backend.MiB
			}
		case ProbeLibrary:
			rep.Library, rep.BLAS, rep.GEMMs = 700*backend.MiB, "libcublas.so.13", 18
		case ProbeVMM:
			rep.Granularity, rep.POSIXFD = 2*backend.MiB, true
			rep.Commit = []Latency{latency(64*backend.MiB, []float64{50, 40, 60})}
			rep.Decommit = []Latency{latency(64*backend.MiB, []float64{30, 35, 90})}
		}
		return json.Marshal(rep)
	}
}

func TestRunAssembles(t *testing.T) {
	var log bytes.Buffer
	c, figs, err := Run(Options{Child: fakeChild(t), Date: "2026-11-30", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "h200-linux-cuda13.0" && c.Platform == "linux" {
		t.Errorf("ID = %q, want h200-linux-cuda13.0", c.ID)
	}
	want := Calibration{Schema: Schema, GPU: "NVIDIA H200", Arch: "sm_90", SMCount: 132, CUDA: "13.0",
		DeviceTotal: 150754820096, Context: 501 * planner.MiB, ContextEager: 601 * planner.MiB,
		LibraryReserve: 700 * planner.MiB, LibraryReserveEager: 700 * planner.MiB}
	got := *c
	got.ID, got.Driver, got.Platform, got.VMM, got.Provenance = "", "", "", VMM{}, Provenance{}
	if got.Schema != want.Schema || got.GPU != want.GPU || got.Arch != want.Arch || got.CUDA != want.CUDA ||
		got.Context != want.Context || got.ContextEager != want.ContextEager || got.LibraryReserve != want.LibraryReserve ||
		got.DeviceTotal != want.DeviceTotal || got.SMCount != want.SMCount {
		t.Errorf("Run = %+v, want %+v", got, want)
	}
	if v := c.VMM; !v.Supported || v.Granularity != 2*planner.MiB || !v.POSIXFDExport || v.Commit[0].P50us != 50 || v.Decommit[0].P90us != 90 {
		t.Errorf("VMM = %+v", v)
	}
	if len(figs) != 4 || figs[0].Spread == 0 || figs[2].Spread != 0 || !strings.Contains(log.String(), "context") {
		t.Errorf("figures = %+v, log %q", figs, log.String())
	}
	if p := c.Provenance; p.Method != "gpuagent calibrate" || p.Date != "2026-11-30" || !strings.Contains(p.Notes, "libcublas.so.13") {
		t.Errorf("Provenance = %+v", p)
	}
	if f := Format(c); !bytes.HasSuffix(f, []byte("}\n")) || !bytes.Contains(f, []byte("\n  \"schema\": ")) {
		t.Errorf("Format is not two-space indented with a final newline:\n%s", f)
	}
}

func TestRunReportsChildFailure(t *testing.T) {
	_, _, err := Run(Options{Child: func(string, []string) ([]byte, error) { return nil, errors.New("boom") }})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Run with a failing child = %v", err)
	}
}

// exitStatus is a child's exit, as *exec.ExitError reports it.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e exitStatus) ExitCode() int { return int(e) }

// TestRunWithoutGPU checks that a child that found no GPU (ExitNoGPU) makes
// Run's error ErrNoGPU, and that any other failure does not.
func TestRunWithoutGPU(t *testing.T) {
	for _, tc := range []struct {
		code int
		want bool
	}{{ExitNoGPU, true}, {1, false}} {
		_, _, err := Run(Options{Child: func(string, []string) ([]byte, error) { return nil, exitStatus(tc.code) }})
		if err == nil || errors.Is(err, ErrNoGPU) != tc.want {
			t.Errorf("Run with a child exiting %d = %v, want ErrNoGPU %v", tc.code, err, tc.want)
		}
	}
	if !NoGPU(fmt.Errorf("probe context: %w", cudamalloc.ErrNoDriver)) || NoGPU(errors.New("cuMemAlloc")) {
		t.Error("NoGPU does not tell a missing driver from another failure")
	}
}

func TestID(t *testing.T) {
	for _, c := range []struct{ gpu, platform, cuda, want string }{
		{"NVIDIA H200", "linux", "13.0", "h200-linux-cuda13.0"},
		{"NVIDIA GeForce RTX 5090", "wsl2", "13.3", "rtx5090-wsl2-cuda13.3"},
		{"NVIDIA H100 80GB HBM3", "linux", "12.8", "h10080gbhbm3-linux-cuda12.8"},
	} {
		if got := ID(c.gpu, c.platform, c.cuda); got != c.want {
			t.Errorf("ID(%q) = %q, want %q", c.gpu, got, c.want)
		}
	}
}

func TestModuleEnv(t *testing.T) {
	env := []string{"A=1", "CUDA_MODULE_LOADING=LAZY"}
	if got := moduleEnv(env, ""); !slices.Equal(got, []string{"A=1"}) {
		t.Errorf("moduleEnv(lazy) = %v", got)
	}
	if got := moduleEnv(env, "EAGER"); !slices.Equal(got, []string{"A=1", "CUDA_MODULE_LOADING=EAGER"}) {
		t.Errorf("moduleEnv(EAGER) = %v", got)
	}
}

func TestLatency(t *testing.T) {
	l := latency(2*backend.MiB, []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10})
	if l.P50us != 5 || l.P90us != 9 || l.MeanUs != 5.5 {
		t.Errorf("latency = %+v, want p50 5, p90 9, mean 5.5", l)
	}
}

func TestProbeWithoutDriver(t *testing.T) {
	var out bytes.Buffer
	err := Probe(ProbeContext, ProbeOptions{}, &out)
	if err == nil {
		t.Skip("a CUDA driver is present: the probe ran")
	}
	if !errors.Is(err, cudamalloc.ErrNoDriver) {
		t.Errorf("Probe without a driver = %v, want ErrNoDriver", err)
	}
	if err := Probe("nosuch", ProbeOptions{}, &out); err == nil {
		t.Error("Probe(nosuch) succeeded")
	}
}

func TestShapes(t *testing.T) {
	if s := Shapes(); len(s) != 18 || s[0].Type != cudamalloc.DTypeFP16 || s[17].Type != cudamalloc.DTypeBF16 {
		t.Errorf("Shapes() = %v", s)
	}
}

func TestRunWithoutBLAS(t *testing.T) {
	child := fakeChild(t)
	c, _, err := Run(Options{Child: func(probe string, env []string) ([]byte, error) {
		if probe == ProbeLibrary {
			return nil, errors.New("no cuBLAS library")
		}
		return child(probe, env)
	}})
	if err != nil || c.LibraryReserve != 0 || c.Context == 0 || !strings.Contains(c.Provenance.Notes, "library not measured") {
		t.Errorf("Run without cuBLAS = %+v, %v; want a document noting the missing reserve", c, err)
	}
}

func TestParseDriverVersion(t *testing.T) {
	for _, c := range []struct{ proc, want string }{
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \nGCC version: 15.3.0\n", "580.159.04"},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n", "550.54.14"},
		{"", "cuDriverGetVersion 13000"},
	} {
		if got := parseDriverVersion([]byte(c.proc), 13000); got != c.want {
			t.Errorf("parseDriverVersion(%q) = %q, want %q", c.proc, got, c.want)
		}
	}
}

// TestCheckedInCalibrations decodes every file of the calibrations table
// into Calibration, rejecting unknown fields, and checks that Format
// reproduces it byte for byte: the table's files are what Run writes.
func TestCheckedInCalibrations(t *testing.T) {
	names, _ := filepath.Glob("../../calibrations/*.json")
	if len(names) == 0 {
		t.Skip("no calibrations table in this tree")
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var c Calibration
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c.Schema != Schema || c.ID+".json" != filepath.Base(name) {
			t.Errorf("%s: schema %q, id %q", name, c.Schema, c.ID)
		}
		if !bytes.Equal(Format(&c), data) {
			t.Errorf("%s is not what Format writes", name)
		}
	}
}
