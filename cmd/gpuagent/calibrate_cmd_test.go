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

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"--machine", "NVIDIA H200, 16 cores", "-o", "h200.json"})
	if want := `gpuagent calibrate --machine "NVIDIA H200, 16 cores" -o h200.json`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}
