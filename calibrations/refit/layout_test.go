package refit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/calibrations/refit"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// TestRefitPlansAsChecked holds the refit's rows of multi-GPU runs to
// what `vramplan check` sets against their logs: each of the corpus's
// tensor-parallel runs, as an observation, is planned in its layout and
// its figures set against rank 0's plan, charge by charge, as check's rows
// are. Before observations carried their settings, a TP 2 run's weights
// were set against the whole model on one GPU.
func TestRefitPlansAsChecked(t *testing.T) {
	const root = "../.."
	entries, err := corpus.Load(os.DirFS(filepath.Join(root, corpus.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range entries {
		e := &entries[i]
		in, _, err := corpus.Input(e, root)
		l, perr := enginelog.Parse([]byte(e.Log))
		version := corpus.Release(e)
		if err != nil || perr != nil || version == "" || in.Parallel.GPUs() < 2 {
			continue
		}
		if l.Version == "" {
			l.Version = version
		}
		check, err := l.Input(in.Model, in.Calibration)
		if err != nil {
			continue
		}
		p, err := planner.Report(check)
		if err != nil {
			continue
		}
		want := map[string]planner.Bytes{}
		for _, r := range enginelog.Compare(&l, &p) {
			if r.Key != "kv" { // check sets the KV figure against the pool the engine allocates
				want[r.Key] = r.Plan
			}
		}
		gpu := observation.GPU{Name: in.Calibration.GPU, TotalMiB: int64(in.Calibration.DeviceTotal / planner.MiB)}
		o := observation.FromLog(&l, in.Model, gpu, l.Version, "2026-11-30", "")
		ch, err := observation.Check(observation.Format(&o))
		if err != nil {
			continue
		}
		cal := in.Calibration
		r := refit.Refit([]refit.Source{{Name: e.ID, Observation: ch.Observation}}, func(observation.GPU) (planner.Calibration, bool) { return cal, false })
		row := r.Rows[0]
		if row.Skipped != "" {
			continue // held: a contradiction the refit leaves out, whichever way it is planned
		}
		for _, res := range row.Residuals {
			if w, ok := want[res.Key]; ok {
				n++
				if res.Plan != w {
					t.Errorf("%s (%v): the refit plans %s at %v, check at %v", e.ID, check.Parallel, res.Key, res.Plan, w)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("%d figures of multi-GPU runs compared, want at least 5", n)
	}
}
