package refit

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

const grid = "../../planner/testdata/engines/llamacpp-h200"

func gridRefit(t *testing.T, edit func(*Source)) Result {
	t.Helper()
	srcs, err := Grid(grid)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 59 {
		t.Fatalf("Grid read %d runs, want the 59 of the H200 grid", len(srcs))
	}
	for i := range srcs {
		if edit != nil {
			edit(&srcs[i])
		}
	}
	all, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	return Refit(srcs, Table(all))
}

// TestGridGivesTheCode holds the planner's llama.cpp constants to the
// refit of the checked-in H200 grid: they are what the rules derive.
func TestGridGivesTheCode(t *testing.T) {
	r := gridRefit(t, nil)
	if r.New != planner.LlamaCppFitted() {
		t.Errorf("the refit of the grid gives %+v\nthe planner has %+v", r.New, planner.LlamaCppFitted())
	}
	if r.ComputeRuns == 0 || r.PoolFA == 0 || r.PoolNoFA == 0 || r.PoolMoE == 0 {
		t.Errorf("runs read: E2 %d, E3 %d / %d / %d; want every rule fed", r.ComputeRuns, r.PoolFA, r.PoolNoFA, r.PoolMoE)
	}
	for _, row := range r.Rows {
		if row.Skipped != "" || len(row.Residuals) != 4 {
			t.Errorf("%s: skipped %q, %d residuals", row.Name, row.Skipped, len(row.Residuals))
		}
	}
}

// TestRefitMoves shows the refit follows its data: the same grid with 10
// MiB more in use after every first decode with flash attention off, at
// every -ub (the pool's constant does not scale with it), gives a pool
// constant 10 MiB higher, and nothing else moves.
func TestRefitMoves(t *testing.T) {
	r := gridRefit(t, func(s *Source) {
		if s.Observation.LlamaCpp.FlashAttn {
			return
		}
		for i := range s.Observation.Figures {
			if f := &s.Observation.Figures[i]; f.Key == "device_used" {
				f.Bytes += 10 << 20
			}
		}
	})
	want := planner.LlamaCppFitted()
	want.PoolNoFA += 10 * planner.MiB
	if r.New != want {
		t.Errorf("refit = %+v, want %+v", r.New, want)
	}
}
