package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestUsageHidesTheProbe(t *testing.T) {
	var out bytes.Buffer
	if err := dispatch(nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "calibrate") || strings.Contains(s, "calibrate-probe") {
		t.Errorf("usage = %q, want calibrate listed and calibrate-probe hidden", s)
	}
}

func TestDispatchErrors(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"nosuch"}, {"calibrate", "extra"}, {"calibrate-probe"}, {"calibrate-probe", "a", "b"}} {
		if err := dispatch(args, &out, &out); !errors.Is(err, errUsage) {
			t.Errorf("dispatch(%q) = %v, want a usage error", args, err)
		}
	}
	if err := dispatch([]string{"calibrate", "--nosuch"}, &out, &out); err == nil {
		t.Error("calibrate --nosuch succeeded")
	}
}

func TestProbeWithoutDriverFails(t *testing.T) {
	var out, errs bytes.Buffer
	err := dispatch([]string{"calibrate-probe", "--blas-dir", "/nowhere", "context"}, &out, &errs)
	if err == nil {
		t.Skip("a CUDA driver is present")
	}
	if !strings.Contains(err.Error(), "no CUDA driver") {
		t.Errorf("calibrate-probe context = %v, want a no-driver error", err)
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"--machine", "NVIDIA H200, 16 cores", "-o", "h200.json"})
	if want := `gpuagent calibrate --machine "NVIDIA H200, 16 cores" -o h200.json`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}
