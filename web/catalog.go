package web

import (
	"errors"
	"fmt"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

// catalog is the models and calibrations, read from the deps once.
type catalog struct {
	models []planner.Model
	cals   []planner.Calibration
	err    error
}

func (a *app) catalog() *catalog {
	a.once.Do(func() {
		var errM, errC error
		if a.deps.Models != nil {
			a.cat.models, errM = a.deps.Models()
		}
		if a.deps.Calibrations != nil {
			a.cat.cals, errC = a.deps.Calibrations()
		}
		a.cat.err = errors.Join(errM, errC)
		if a.cat.err == nil && (len(a.cat.models) == 0 || len(a.cat.cals) == 0) {
			a.cat.err = errors.New("web: the catalog or the calibration table is empty")
		}
	})
	return &a.cat
}

// resolve fills the state's defaults and finds its model and calibration.
// When either is unknown it falls back to the first of its kind and
// returns the reason alongside, so a page can still render.
func (k *catalog) resolve(s *calc.State) (planner.Model, planner.Calibration, error) {
	var problem error
	m, ok := k.model(s.Model)
	if !ok {
		if s.Model != "" {
			problem = fmt.Errorf("model %q is not in the catalog", s.Model)
		}
		m = k.models[0]
		s.Model = m.ID
	}
	c, ok := k.calibration(s.GPU)
	if !ok {
		if s.GPU != "" && problem == nil {
			problem = fmt.Errorf("no calibration %q", s.GPU)
		}
		c = k.cals[0]
		s.GPU = c.ID
	}
	return m, c, problem
}

func (k *catalog) model(id string) (planner.Model, bool) {
	for _, m := range k.models {
		if m.ID == id {
			return m, true
		}
	}
	return planner.Model{}, false
}

func (k *catalog) calibration(id string) (planner.Calibration, bool) {
	for _, c := range k.cals {
		if c.ID == id {
			return c, true
		}
	}
	return planner.Calibration{}, false
}
