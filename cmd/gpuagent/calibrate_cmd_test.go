package main

import (
	"bytes"
	"strings"
	"testing"
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
	if !strings.Contains(errs.String(), "no CUDA driver") {
		t.Errorf("calibrate-probe context = %d, %q; want a no-driver error", code, errs.String())
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
