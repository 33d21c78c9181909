package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/calibrate"
)

func TestUsageHidesTheProbe(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"help"}, &out, &out); code != exitOK {
		t.Fatalf("run(help) = %d", code)
	}
	if s := out.String(); !strings.Contains(s, "calibrate") || strings.Contains(s, "calibrate-probe") {
		t.Errorf("usage = %q, want calibrate listed and calibrate-probe hidden", s)
	}
}

func TestCalibrateUsageErrors(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"calibrate", "extra"}, {"calibrate-probe"}, {"calibrate-probe", "a", "b"}} {
		if code := run(args, &out, &out); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, exitUsage)
		}
	}
	if code := run([]string{"calibrate", "--nosuch"}, &out, &out); code == exitOK {
		t.Error("calibrate --nosuch succeeded")
	}
}

func TestProbeWithoutDriverFails(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"calibrate-probe", "--blas-dir", "/nowhere", "context"}, &out, &errs)
	if code == exitOK {
		t.Skip("a CUDA driver is present")
	}
	if !strings.Contains(errs.String(), "no CUDA driver") || code != calibrate.ExitNoGPU {
		t.Errorf("calibrate-probe context = %d, %q; want a no-driver error and exit %d", code, errs.String(), calibrate.ExitNoGPU)
	}
}

// TestCalibrateWithoutGPU checks what calibrate says when its probes found
// no GPU: that there is none, and what to do, not a child's exit status.
func TestCalibrateWithoutGPU(t *testing.T) {
	var errs bytes.Buffer
	err := fmt.Errorf("calibrate-probe context: %w (exit status 3)", calibrate.ErrNoGPU)
	if code := exitCode("calibrate", err, &errs); code != exitFail {
		t.Errorf("exitCode(no GPU) = %d, want %d", code, exitFail)
	}
	for _, want := range []string{"no NVIDIA GPU", "driver", "nvidia-smi", "vramplan plan --gpu"} {
		if !strings.Contains(errs.String(), want) || strings.Contains(errs.String(), "exit status") {
			t.Errorf("calibrate without a GPU says %q, want %q and no exit status", errs.String(), want)
		}
	}
}

// TestCommandLine: the recorded command is how the figures were measured;
// where they went (-o, --upload, --yes) is left out, so an upload URL on
// an address never makes the server refuse the upload as identifying.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", "NVIDIA H200, 16 cores", "-o", "h200.json"}, `gpuagent calibrate --machine "NVIDIA H200, 16 cores"`},
		{[]string{"--runs", "5", "--upload", "http://10.0.0.7:8080", "--yes", "-o=/tmp/x.json", "--blas-dir", "/opt/lib"},
			`gpuagent calibrate --runs 5 --blas-dir /opt/lib`},
		{[]string{"-upload=http://192.168.1.2/", "-yes=true", "--device", "1"}, `gpuagent calibrate --device 1`},
	} {
		if got := commandLine(tc.args); got != tc.want {
			t.Errorf("commandLine(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}
