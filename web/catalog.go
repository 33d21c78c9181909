package web

import (
	"errors"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
	"github.com/vramplan/vramplan/web/calc"
)

// catalog is the models and calibrations, read from the deps once, and
// for one request the picker's calibrations with the community's merged in
// and the ids that resolve elsewhere (community.List).
type catalog struct {
	models  []planner.Model
	cals    []planner.Calibration
	aliases []names.Alias
	err     error
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
// into the table (community.List), for one request.
func (a *app) catalogFor(c echo.Context) *catalog {
	k := a.catalog()
	if k.err != nil {
		return k
	}
	merged := *k
	l, _ := a.listing(c.Request().Context(), k.cals)
	merged.cals, merged.aliases = l.Calibrations, l.Aliases
	return &merged
}

// resolution is what a state's model and GPU name.
type resolution struct {
	model planner.Model
	cal   planner.Calibration
	// note is what to tell about the GPU the state named: an id that now
	// names another entry, the card's other platforms (calibrations.Resolve).
	note string
}

// resolve finds the state's model (names.Resolve, the CLI's rules: an id
// or an unambiguous prefix, any case) and GPU (calibrations.Resolve, the
// CLI's --gpu) and writes their ids into the state. A state that names
// neither gets the first of each; a name that matches nothing, or several,
// is an error naming its key (for the GPU, wrapping the *names.Error that
// lists the choices), and nothing is planned in its place.
func (k *catalog) resolve(s *calc.State) (resolution, error) {
	var r resolution
	mi, errM := find("model", s.Model, k.modelIDs())
	if errM != nil {
		return r, &calc.FieldError{Key: "model", Msg: errM.Error()}
	}
	r.model, r.cal = k.models[mi], k.cals[0]
	if s.GPU != "" {
		var err error
		if r.cal, r.note, err = calibrations.Resolve(s.GPU, k.cals, k.aliases); err != nil {
			return r, &gpuError{err}
		}
	}
	s.Model, s.GPU = r.model.ID, r.cal.ID
	return r, nil
}

// gpuError is a GPU name that resolves to no calibration, or to several:
// a *calc.FieldError of the key gpu, which also holds the *names.Error.
type gpuError struct{ err error }

func (e *gpuError) Error() string { return e.field().Error() }

func (e *gpuError) Unwrap() []error { return []error{e.field(), e.err} }

func (e *gpuError) field() *calc.FieldError { return &calc.FieldError{Key: "gpu", Msg: e.err.Error()} }

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

// model returns the model name resolves to (names.Resolve).
func (k *catalog) model(name string) (planner.Model, error) {
	id, err := names.Resolve("model", name, k.modelIDs())
	if err != nil {
		return planner.Model{}, err
	}
	return k.models[slices.Index(k.modelIDs(), id)], nil
}
