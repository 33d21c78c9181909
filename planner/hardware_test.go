package planner

import (
	"os"
	"strings"
	"testing"
)

func goldenInput(t *testing.T, name string) Input {
	t.Helper()
	data, err := os.ReadFile("testdata/golden/" + name + ".input.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestNoFP4 checks that a GPU without FP4 support is told so when a plan
// asks for nvfp4, and is never offered nvfp4 by a lever.
func TestNoFP4(t *testing.T) {
	in := goldenInput(t, "nvfp4-kv-h200")
	p, _ := Report(in)
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "KV dtype nvfp4 needs FP4 support") {
		t.Errorf("Report(nvfp4 KV on %s).Warnings = %q, want the FP4 warning", in.Calibration.Arch, p.Warnings)
	}
	in.Limits.KVDtype, in.Features.WeightCache = KVDtypeF16, WeightCacheFP16
	p, _ = Report(in)
	changes := p.Levers
	if p.Combination != nil {
		changes = append(changes, p.Combination.Changes...)
	}
	for _, k := range knobsFor(&in) {
		for _, r := range k.rungs {
			if r.value() == "nvfp4" {
				t.Errorf("knobsFor(f16 on %s): %s's ladder holds nvfp4", in.Calibration.Arch, k.name)
			}
		}
	}
	for _, l := range changes {
		if l.To == "nvfp4" {
			t.Errorf("Report(f16 on %s) offers %s → nvfp4", in.Calibration.Arch, l.Knob)
		}
	}
	in.Calibration.Arch = "sm_100a"
	if p, _ = Report(in); len(p.Warnings) > 1 || !offers(p, KnobKVDtype, "nvfp4") && !offers(p, KnobKVDtype, "q4_0") {
		t.Errorf("Report(on sm_100a) = warnings %q levers %v", p.Warnings, p.Levers)
	}
}

func offers(p Plan, k Knob, to string) bool {
	for _, l := range p.Levers {
		if l.Knob == k && l.To == to {
			return true
		}
	}
	return false
}

func TestFP4Unsupported(t *testing.T) {
	for arch, want := range map[string]bool{"sm_90": true, "sm_90a": true, "sm_89": true, "sm_100": false,
		"sm_120a": false, "": false, "hopper": false, "sm_": false} {
		c := Calibration{Arch: arch}
		if got := c.fp4Unsupported(); got != want {
			t.Errorf("Calibration{Arch: %q}.fp4Unsupported() = %v, want %v", arch, got, want)
		}
	}
}

// TestBudgetOverDevice checks that a budget the device cannot hold warns.
func TestBudgetOverDevice(t *testing.T) {
	in := goldenInput(t, "budget-over-device-rtx5090")
	p, _ := Report(in)
	if !p.Fits || !strings.Contains(strings.Join(p.Warnings, "\n"), "is more than NVIDIA GeForce RTX 5090 holds (32,607 MiB)") {
		t.Errorf("Report(1043200 MiB on a 32 GB card) = fits %v, warnings %q", p.Fits, p.Warnings)
	}
	in.Budget = in.Calibration.DeviceTotal
	if p, _ = Report(in); len(p.Warnings) != 0 {
		t.Errorf("Report(budget = device) warns %q", p.Warnings)
	}
}

// TestWeightsExceedBudget checks that weights that cannot fit say so
// first, by how much, and that the report offers no lever but the budget.
func TestWeightsExceedBudget(t *testing.T) {
	in := goldenInput(t, "weights-exceed-llama70b-rtx5090")
	p, _ := Report(in)
	if p.Failure == nil || p.Failure.Reason != FailureWeights ||
		!strings.HasPrefix(p.Failure.Message, "the weights alone are 40,503 MiB, 7,896 MiB more than the 32,607 MiB budget") {
		t.Fatalf("Report(70B on 32 GB).Failure = %+v", p.Failure)
	}
	if !budgetAndLayoutOnly(p.Levers) || p.Combination != nil {
		t.Errorf("Report(70B on 32 GB) levers %v, combination %v; want the layout's and the budget alone", p.Levers, p.Combination)
	}
	// Weights that fit, but not with the driver's share before them.
	in.Budget = p.Weights + MiB
	if p, _ = Report(in); p.Failure == nil || p.Failure.Reason != FailureWeights ||
		!strings.Contains(p.Failure.Message, "what the driver charges before them") || !budgetAndLayoutOnly(p.Levers) {
		t.Errorf("Report(budget just over the weights) = %+v, levers %v", p.Failure, p.Levers)
	}
	// A plan some knob can fit keeps its levers.
	in.Budget = 0
	in.Calibration.DeviceTotal = 80 << 30
	if p, _ = Report(in); p.Failure == nil || p.Failure.Reason != FailureOverBudget || len(p.Levers) < 2 {
		t.Errorf("Report(70B on 80 GiB) = %+v, levers %v", p.Failure, p.Levers)
	}
}
