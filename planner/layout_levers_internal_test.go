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
		if c, ok := bestOfCount(&in, n, layoutMostHeadroom, &work, nil); ok {
			t.Fatalf("%d GPUs fit (%v); the test needs an input that no layout fits", n, c.Parallel)
		}
	}
	if work > maxGPUWork {
		t.Errorf("the search did %d units of work, want at most %d", work, maxGPUWork)
	}
	if c := minGPUs(&in, nil); c.GPUs != 0 {
		t.Errorf("minGPUs = %d GPUs, want 0 (none fits within the search)", c.GPUs)
	}
	if p, _ := Report(in); p.Fits || p.Failure == nil {
		t.Fatalf("Report(hostile) fits; want a failure report")
	}
}

// TestLayoutSearchStops holds the rest of finding 1 of issue 13: the
// layout levers and the fewest-GPUs search ask the stop check before each
// layout they try, so a cancelled request stops there too, not only in
// the lever search; once it reports true it is asked no more.
func TestLayoutSearchStops(t *testing.T) {
	in := hostileInput(t, 4096, 64)
	in.Budget = in.Calibration.context(true) + in.Calibration.library(true) + 64*MiB
	if err := Validate(&in); err != nil {
		t.Fatal(err)
	}
	leverAsks := 0
	levers(newTrials(&in, func() bool { leverAsks++; return false }))
	all := 0
	if _, err := ReportWith(in, Options{Stop: func() bool { all++; return false }}); err == nil || err == ErrStopped {
		t.Fatalf("ReportWith(hostile) = %v, want a failure report", err)
	}
	if all <= leverAsks+10 {
		t.Fatalf("the report asked the stop check %d times, the lever search alone %d: the layout search does not ask it", all, leverAsks)
	}
	for _, at := range []int{leverAsks + 1, all - 1} {
		asked := 0
		_, err := ReportWith(in, Options{Stop: func() bool { asked++; return asked >= at }})
		if err != ErrStopped || asked != at {
			t.Errorf("stopping at ask %d of %d: %v after %d asks, want ErrStopped after %d", at, all, err, asked, at)
		}
	}
}
