package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

const gpusModel = "llama-3.3-70b-instruct-fp8"

func TestGPUsExitCodes(t *testing.T) {
	base := []string{"gpus", "--model", gpusModel, "--max-seq-len", "32768"}
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout for 0/1, in stderr for 2
	}{
		{base, 0, "gpu  "},
		{append(base, "--engine", "vllm"), 0, "launch commands:\n  "},
		{append(base, "--min-memory", "1TiB"), 1, ": 0 GPUs"},
		{append(base, "--sort", "speed"), 2, `--sort: unknown order "speed"`},
		{append(base, "--label", "guessed"), 2, `--label: unknown label "guessed"`},
		{append(base, "--min-memory", "lots"), 2, "-min-memory"},
		{append(base, "--gpu", "h200"), 2, "--gpu: not taken"},
		{append(base, "--budget", "30GiB"), 2, "--budget: not taken"},
		{append(base, "--tensor-parallel", "2"), 2, "--tensor-parallel: not taken"},
		{[]string{"gpus", "--model", gpusModel}, 2, "--max-seq-len: required"},
		{[]string{"gpus", "--max-seq-len", "4096"}, 2, "--model: required"},
		{append(base, "--max-batch", "-1"), 2, "--max-batch:"},
	} {
		code, out, errs := runCLI(tc.args...)
		where := out
		if tc.code == 2 {
			where = errs
		}
		if code != tc.code || !strings.Contains(where, tc.want) {
			t.Errorf("%v = exit %d, output %q; want exit %d containing %q", tc.args, code, where, tc.code, tc.want)
		}
	}
}

// TestGPUsJSON checks that --json prints planner.GPUs' rows, filtered and
// sorted as the flags say.
func TestGPUsJSON(t *testing.T) {
	m, err := catalog.Lookup(gpusModel)
	if err != nil {
		t.Fatal(err)
	}
	cals, _ := calibrations.All()
	want, err := planner.GPUs(planner.Input{Model: m, Limits: planner.Limits{MaxSeqLen: 32768, MaxBatch: 4},
		Serving: planner.Serving{Engine: planner.EngineSGLang}}, cals)
	if err != nil {
		t.Fatal(err)
	}
	got := gpusJSON(t, "--engine", "sglang", "--max-batch", "4")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("vramplan gpus --json = %+v\nwant planner.GPUs' %+v", got, want)
	}
	for _, f := range gpusJSON(t, "--min-memory", "40GiB", "--label", "estimated", "--sort", "memory") {
		if f.DeviceTotal < 40*planner.GiB || f.Label != planner.CalibrationEstimated {
			t.Errorf("--min-memory 40GiB --label estimated shows %s (%v, %s)", f.Calibration, f.DeviceTotal, f.Label)
		}
	}
	rows := gpusJSON(t, "--sort", "memory")
	for i := 1; i < len(rows); i++ {
		if a, b := rows[i-1], rows[i]; a.Fits() == b.Fits() && a.DeviceTotal < b.DeviceTotal {
			t.Errorf("--sort memory: %s (%v) before %s (%v)", a.Calibration, a.DeviceTotal, b.Calibration, b.DeviceTotal)
		}
	}
}

func gpusJSON(t *testing.T, args ...string) []planner.GPUFit {
	t.Helper()
	code, out, errs := runCLI(append([]string{"gpus", "--model", gpusModel, "--max-seq-len", "32768", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("vramplan gpus --json %v: exit %d: %s", args, code, errs)
	}
	var rows []planner.GPUFit
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("vramplan gpus --json %v: %v", args, err)
	}
	return rows
}

// TestGPUsText checks the table's rows: one per GPU, its id, GPUs and
// layout, the launch command of each under an engine.
func TestGPUsText(t *testing.T) {
	_, out, _ := runCLI("gpus", "--model", gpusModel, "--max-seq-len", "32768", "--engine", "vllm")
	rows := gpusJSON(t, "--engine", "vllm")
	for _, f := range rows {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " "+f.Calibration+" ") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("no row for %s in\n%s", f.Calibration, out)
			continue
		}
		if !strings.Contains(out, "  "+f.Calibration+": "+f.Launch+"\n") {
			t.Errorf("no launch command %q for %s", f.Launch, f.Calibration)
		}
	}
	if !strings.Contains(out, "TP 2") || !strings.Contains(out, "PP 3") {
		t.Errorf("the table names no TP 2 or PP 3 layout:\n%s", out)
	}
	for _, f := range rows {
		if f.Fits() && !f.PoolTakesRest {
			t.Errorf("%s under vLLM: pool_takes_rest false, though vLLM's KV pool takes what its fraction leaves", f.Calibration)
		}
	}
	if strings.Contains(out, " 0 MiB ") || !strings.Contains(out, " — ") {
		t.Errorf("under vLLM the headroom column says 0 MiB, or never —:\n%s", out)
	}
}
