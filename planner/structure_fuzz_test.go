package planner

import (
	"errors"
	"testing"
)

// maxStopAsks bounds how often one report asks its stop check: once per
// trial plan of the lever search and once per layout tried. The lever
// search's combination search stops at maxComboEvals trials (one more
// passes its check), its single-knob levers bisect each knob's rungs (about
// a hundred trials), and the layout searches try a few hundred layouts,
// each charged at least the model's layers against maxGPUWork: otherAsks
// is those two with room to spare. A report past this bound has a search
// that grows with the input's structure. (The bound was 20,000, the
// combination search's cap alone, and the kept input
// testdata/fuzz/FuzzStructure/kept-combination-cap, which runs that search
// to its cap, asked 20,477 times: 20,001 combinations, 476 others.)
const maxStopAsks = maxComboEvals + 1 + otherAsks

const otherAsks = 4_000

// FuzzStructure holds finding 1 of issue 13 (a model shape whose structure
// made one report cost minutes): a shape of arbitrary layer groups,
// distinct windows, matrices and layout under an arbitrary budget is
// refused by Validate, or reported with a bounded number of trial plans
// and layouts (the stop check counts them); a report stopped at its first
// ask returns ErrStopped, or fits, without asking again.
func FuzzStructure(f *testing.F) {
	f.Add(uint16(64), uint8(64), uint16(0), int64(22800), uint8(1), uint8(1))
	f.Add(uint16(300), uint8(7), uint16(900), int64(149<<10), uint8(2), uint8(2))
	f.Add(uint16(4096), uint8(64), uint16(1024), int64(1000), uint8(1), uint8(1))
	f.Add(uint16(5000), uint8(200), uint16(5000), int64(-1), uint8(9), uint8(0))
	f.Fuzz(func(t *testing.T, groups uint16, windows uint8, matrices uint16, budgetMiB int64, tp, pp uint8) {
		in := hostileInput(t, int(min(groups, 4200))|1, int(windows)|1)
		for m := in.Model.Weights.Matrices; len(in.Model.Weights.Matrices) < int(min(matrices, 1100)); {
			in.Model.Weights.Matrices = append(in.Model.Weights.Matrices, m[len(in.Model.Weights.Matrices)%len(m)])
		}
		in.Budget = Bytes(budgetMiB) * MiB
		in.Parallel = Parallel{Tensor: int(tp % 9), Pipeline: int(pp % 9)}
		if err := Validate(&in); err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate = %T %v, want an *InputError", err, err)
			}
			return
		}
		asks := 0
		_, err := ReportWith(in, Options{Stop: func() bool { asks++; return false }})
		if err == ErrStopped {
			t.Fatal("ReportWith stopped with a stop check that never reports true")
		}
		if asks > maxStopAsks {
			t.Fatalf("a report of %d groups, %d windows, %d matrices asked the stop check %d times, over %d",
				len(in.Model.Layers), windows|1, len(in.Model.Weights.Matrices), asks, maxStopAsks)
		}
		again := 0
		p, err := ReportWith(in, Options{Stop: func() bool { again++; return true }})
		if again > 1 || (err != ErrStopped && !p.Fits && asks > 0) {
			t.Fatalf("a report stopped at its first ask: %v after %d asks (%d when never stopped)", err, again, asks)
		}
	})
}
