package corpus_test

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
)

// TestKinds holds the model kind the planner reads from each run's model
// shape (planner.ClassOf, the class a plan looks its range up under) to
// the family the entry states.
func TestKinds(t *testing.T) {
	es := load(t)
	for i := range es {
		r := corpus.Compare(&es[i], root)
		if r.Err == nil && r.Class.Kind != es[i].Model.Family {
			t.Errorf("%s: the planner reads kind %q from the model, the entry states %q", es[i].ID, r.Class.Kind, es[i].Model.Family)
		}
	}
}
