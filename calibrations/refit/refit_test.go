package refit

import (
	"fmt"
	"slices"
	"strings"
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
	if r.Compute.Used == 0 || r.PoolFA.Used == 0 || r.PoolNoFA.Used == 0 || r.PoolMoE.Used == 0 {
		t.Errorf("runs read: E2 %d, E3 %d / %d / %d; want every rule fed", r.Compute.Used, r.PoolFA.Used, r.PoolNoFA.Used, r.PoolMoE.Used)
	}
	if n := r.Rejected(); n != 0 {
		t.Errorf("the refit rejected %d of the grid's runs, want none: %+v %+v %+v %+v", n, r.Compute.Rejected, r.PoolFA.Rejected, r.PoolNoFA.Rejected, r.PoolMoE.Rejected)
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

// scaled returns a copy of the grid run at path with the figure key set
// to bytes, named name.
func scaled(t *testing.T, srcs []Source, run, key string, set func(int64) int64, name string) Source {
	t.Helper()
	for _, s := range srcs {
		if s.Name == run {
			c := s
			c.Name = name
			c.Observation.Figures = slices.Clone(s.Observation.Figures)
			for i := range c.Observation.Figures {
				if f := &c.Observation.Figures[i]; f.Key == key {
					f.Bytes = set(f.Bytes)
				}
			}
			return c
		}
	}
	t.Fatalf("no grid run %s", run)
	return Source{}
}

// TestRefitPoisoned holds issue 31's point 7 on the refit's side: 40
// "accepted" observations with 3× the compute moved E2 from 16 to 8,798,425
// bytes a token. They are held by the rule the server holds them by, so a
// server that lists them as accepted moves nothing; runs the hold rule
// lets through are rejected as implausible or as outliers, counted, and
// the constants stay the code's.
func TestRefitPoisoned(t *testing.T) {
	srcs, err := Grid(grid)
	if err != nil {
		t.Fatal(err)
	}
	const e2Run, e3Run = "dense/32768_1_0_f16_f16_0_512_0", "dense/4096_1_0_f16_f16_1_512_0"
	var bad []Source
	for i := range 40 {
		bad = append(bad, scaled(t, srcs, e2Run, "compute_buffer", func(b int64) int64 { return 3 * b }, fmt.Sprintf("upload x3-%d", i)))
	}
	for i := range 3 { // within HeldFactor, but no constant in range makes them
		bad = append(bad, scaled(t, srcs, e2Run, "compute_buffer", func(b int64) int64 { return b * 3 / 2 }, fmt.Sprintf("upload x1.5-%d", i)))
	}
	for i := range 3 { // plausible, but far from every other run
		bad = append(bad, scaled(t, srcs, e2Run, "compute_buffer", func(b int64) int64 { return b + 20<<20 }, fmt.Sprintf("upload +20MiB-%d", i)))
		bad = append(bad, scaled(t, srcs, e3Run, "device_used", func(b int64) int64 { return b + 400<<20 }, fmt.Sprintf("upload pool+400MiB-%d", i)))
	}
	all, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	r := Refit(append(srcs, bad...), Table(all))
	if r.New != planner.LlamaCppFitted() {
		t.Errorf("the refit with %d poisoned uploads gives %+v\nthe planner has %+v", len(bad), r.New, planner.LlamaCppFitted())
	}
	held, rejected := 0, map[string]int{}
	for _, row := range r.Rows {
		switch {
		case strings.HasPrefix(row.Skipped, "held: compute_buffer is"):
			held++
		case len(row.Rejected) > 0:
			kind := "outlier"
			if strings.Contains(row.Rejected[0], "plausible") {
				kind = "implausible"
			}
			rejected[kind]++
			if !strings.HasPrefix(row.Name, "upload") {
				t.Errorf("an honest grid run was rejected: %s %v", row.Name, row.Rejected)
			}
		}
	}
	if held != 40 || rejected["implausible"] != 3 || rejected["outlier"] != 6 || r.Rejected() != 9 {
		t.Errorf("held %d, rejected %v (%d in all); want 40 held, 3 implausible and 6 outliers", held, rejected, r.Rejected())
	}
}
