package planner

import "testing"

// TestMinGPUsWorkBounded holds the fewest-GPUs search to its work bound on
// a model at the input bounds (4,096 layer groups) under a budget that no
// layout fits: before the bound it tried up to 4,096 layouts of up to
// 4,096 GPUs, each walking every rank against every stage, and a failure
// report on such an input did not finish in ten minutes.
func TestMinGPUsWorkBounded(t *testing.T) {
	in := hostileInput(t, 4096, 64)
	in.Budget = in.Calibration.context(true) + in.Calibration.library(true) + 64*MiB
	if err := Validate(&in); err != nil {
		t.Fatal(err)
	}
	work := 0
	for n := 1; n <= maxWorld && work < maxGPUWork; n++ {
		if c, ok := bestOfCount(&in, n, &work); ok {
			t.Fatalf("%d GPUs fit (%v); the test needs an input that no layout fits", n, c.Parallel)
		}
	}
	if work > maxGPUWork {
		t.Errorf("the search did %d units of work, want at most %d", work, maxGPUWork)
	}
	if c := minGPUs(&in); c.GPUs != 0 {
		t.Errorf("minGPUs = %d GPUs, want 0 (none fits within the search)", c.GPUs)
	}
	if p, _ := Report(in); p.Fits || p.Failure == nil {
		t.Fatalf("Report(hostile) fits; want a failure report")
	}
}
