package web

import (
	"errors"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
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

// catalogFor returns the catalog with the community calibrations merged
// into the table (withCommunity), for one request.
func (a *app) catalogFor(c echo.Context) *catalog {
	k := a.catalog()
	if k.err != nil {
		return k
	}
	merged := *k
	merged.cals = a.withCommunity(c.Request().Context(), k.cals)
	return &merged
}

// resolve finds the state's model and calibration by names.Resolve, the
// CLI's rules (an id or an unambiguous prefix, any case), and writes their
// ids into the state. A state that names neither gets the first of each;
// a name that matches nothing, or several, is an error naming its key,
// and nothing is planned in its place.
func (k *catalog) resolve(s *calc.State) (planner.Model, planner.Calibration, *calc.FieldError) {
	var m planner.Model
	var c planner.Calibration
	mi, errM := find("model", s.Model, k.modelIDs())
	ci, errC := find("calibration", s.GPU, k.calIDs())
	if errM != nil {
		return m, c, &calc.FieldError{Key: "model", Msg: errM.Error()}
	}
	if errC != nil {
		return m, c, &calc.FieldError{Key: "gpu", Msg: errC.Error()}
	}
	m, c = k.models[mi], k.cals[ci]
	s.Model, s.GPU = m.ID, c.ID
	return m, c, nil
}

// find returns the index of the id that name resolves to; an empty name is
// the first.
func find(kind, name string, ids []string) (int, error) {
	if name == "" {
		return 0, nil
	}
	id, err := names.Resolve(kind, name, ids)
	if err != nil {
		return -1, err
	}
	return slices.Index(ids, id), nil
}

func (k *catalog) modelIDs() []string {
	ids := make([]string, len(k.models))
	for i, m := range k.models {
		ids[i] = m.ID
	}
	return ids
}

func (k *catalog) calIDs() []string {
	ids := make([]string, len(k.cals))
	for i, c := range k.cals {
		ids[i] = c.ID
	}
	return ids
}

// model returns the model name resolves to (names.Resolve).
func (k *catalog) model(name string) (planner.Model, error) {
	id, err := names.Resolve("model", name, k.modelIDs())
	if err != nil {
		return planner.Model{}, err
	}
	return k.models[slices.Index(k.modelIDs(), id)], nil
}
