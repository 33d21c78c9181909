package planner

import (
	"errors"
	"os"
	"testing"
)

// hostileInput is the A4.3 example with its 48 full layers replaced by
// groups of one sliding layer each, with windows distinct windows among
// them, and every optional feature on, so that the failure report tries
// every knob and the combination search runs: the shape of finding 1 of
// issue 13, whose cost grew with the square of the windows.
func hostileInput(t testing.TB, groups, windows int) Input {
	t.Helper()
	data, err := os.ReadFile("testdata/golden/a43-example.input.json")
	if err != nil {
		t.Fatal(err)
	}
	var in Input
	if err := decodeStrict(data, &in); err != nil {
		t.Fatal(err)
	}
	in.Model.Layers = make([]LayerGroup, groups)
	for i := range in.Model.Layers {
		in.Model.Layers[i] = LayerGroup{Count: 1, Layer: Layer{Kind: LayerSliding, KVHeads: 8, KeyDim: 128, ValueDim: 128,
			Window: 1024 + i%windows}}
	}
	in.Features = Features{WeightCache: WeightCacheFP16, SpecDecodeK: 8, CUDAGraphs: true, ResidualRing: 4096,
		EagerModuleLoading: true}
	in.Limits = Limits{MaxBatch: 256, MaxSeqLen: 131072, MaxPrefillTokens: 8192, BlockTokens: 64}
	in.Budget = 22800 * MiB
	return in
}

// TestReportWorkLinear holds finding 1 of issue 13: a failure report builds
// the model's shape once per KV format, not once per trial plan, so its
// allocations do not grow with the thousands of trials the lever search
// makes (on the code before the fix, this input allocated once per
// trial for its 64 windows and took 0.36 s; 64 windows x 4096 groups did
// not finish in a minute).
func TestReportWorkLinear(t *testing.T) {
	in := hostileInput(t, 64, 64)
	trials := 0
	if _, err := ReportWith(in, Options{Stop: func() bool { trials++; return false }}); err == nil || err == ErrStopped {
		t.Fatalf("ReportWith(hostile) = %v, want a failure report", err)
	}
	if err := Validate(&in); err != nil {
		t.Fatal(err)
	}
	// The lever search alone: the layout levers (layout_levers.go) plan
	// whole layouts and are not this test's subject.
	allocs := testing.AllocsPerRun(2, func() { levers(newTrials(&in, nil)) })
	if trials < 1000 {
		t.Fatalf("the report made %d trial plans; the input no longer exercises the search", trials)
	}
	if allocs > 500 {
		t.Errorf("the lever search of hostile allocated %v times for %d trial plans, want at most 500", allocs, trials)
	}
}

// TestReportStops holds the cancellation half of finding 1: once the stop
// check reports true, the report asks it no more and returns ErrStopped.
func TestReportStops(t *testing.T) {
	in := hostileInput(t, 64, 64)
	asked := 0
	_, err := ReportWith(in, Options{Stop: func() bool { asked++; return asked > 10 }})
	if err != ErrStopped {
		t.Fatalf("ReportWith(stopped after 10) = %v, want ErrStopped", err)
	}
	if asked != 11 {
		t.Errorf("the stop check was asked %d times, want 11 (none after it reported true)", asked)
	}
}

// TestStructureBounds holds the input half of finding 1: a shape with more
// structure than any real model is refused, naming the field.
func TestStructureBounds(t *testing.T) {
	many := func(in *Input) {
		for len(in.Model.Weights.Matrices) <= maxMatrices {
			in.Model.Weights.Matrices = append(in.Model.Weights.Matrices, in.Model.Weights.Matrices[0])
		}
	}
	classes := func(in *Input) {
		in.Model.Weights.Classes = make([]WeightClass, maxClasses+1)
	}
	for _, tc := range []struct {
		name           string
		groups, window int
		edit           func(*Input)
		field          string
	}{
		{"65 windows", 65, 65, nil, "model.layers[64].window"},
		{"4097 groups", maxLayers + 1, 1, nil, "model.layers"},
		{"1025 matrices", 8, 1, many, "model.weights.matrices"},
		{"65 classes", 8, 1, classes, "model.weights.classes"},
	} {
		in := hostileInput(t, tc.groups, tc.window)
		if tc.edit != nil {
			tc.edit(&in)
		}
		var ie *InputError
		if err := Validate(&in); !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%s: Validate = %v, want an InputError for %s", tc.name, err, tc.field)
		}
	}
	at := hostileInput(t, maxLayers, maxWindows)
	if err := Validate(&at); err != nil {
		t.Errorf("Validate(%d groups, %d windows) = %v, want nil", maxLayers, maxWindows, err)
	}
}

func TestNumKVDtypes(t *testing.T) {
	if len(KVDtypes) != numKVDtypes {
		t.Fatalf("len(KVDtypes) = %d, numKVDtypes = %d", len(KVDtypes), numKVDtypes)
	}
}
