package web

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
)

// planQuery answers GET /api/plan: the plan document of the URL's state.
func (a *app) planQuery(c echo.Context) error {
	k := a.catalogFor(c)
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	in, field, err := k.input(c.QueryString())
	var nf *notFound
	if errors.As(err, &nf) {
		return resolveError(c, field, err)
	}
	if err != nil {
		return jsonError(c, http.StatusBadRequest, field, err)
	}
	return a.report(c, in)
}

// notFound is a query naming a model or calibration the table lacks.
type notFound struct{ err error }

func (e *notFound) Unwrap() error { return e.err }

func (e *notFound) key() string {
	var fe *calc.FieldError
	errors.As(e.err, &fe)
	return fe.Key
}

func (e *notFound) Error() string { return e.err.Error() }

// input resolves a query into a planner input, naming the key at fault.
func (k *catalog) input(query string) (planner.Input, string, error) {
	s, err := calc.ParseQuery(query)
	var fe *calc.FieldError
	if errors.As(err, &fe) {
		return planner.Input{}, fe.Key, err
	}
	r, err := k.resolve(&s)
	if err != nil {
		nf := &notFound{err}
		return planner.Input{}, nf.key(), nf
	}
	in := planner.Input{Model: r.model, Calibration: r.cal}
	s.Apply(&in)
	return in, "", nil
}

// planInput answers POST /api/plan: the body is the input object a plan
// document carries.
func (a *app) planInput(c echo.Context) error {
	data, err := a.lim.readBody(c)
	if err != nil {
		return err
	}
	in, err := planner.ParseInput(data)
	if err != nil {
		var ie *planner.InputError
		if errors.As(err, &ie) {
			return jsonError(c, http.StatusBadRequest, ie.Field, err)
		}
		return jsonError(c, http.StatusBadRequest, "", err)
	}
	return a.report(c, in)
}

// report writes the plan document of in, fitting or not, planning in one
// of the app's planning slots and stopping if the client leaves.
func (a *app) report(c echo.Context, in planner.Input) error {
	ctx := c.Request().Context()
	var p planner.Plan
	err := a.lim.plan(ctx, func() (err error) {
		p, err = report(ctx, in)
		return err
	})
	if errors.Is(err, errGone) {
		return err
	}
	var f *planner.Failure
	if err != nil && !errors.As(err, &f) {
		var ie *planner.InputError
		errors.As(err, &ie)
		field := ""
		if ie != nil {
			field = ie.Field
		}
		return jsonError(c, http.StatusBadRequest, field, err)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, p.JSON())
}

// view answers GET /api/view: what the page shows for the URL's state.
func (a *app) view(c echo.Context) error {
	return a.pageJSON(c, func(p *templates.Page) any { return p.View })
}

// gpus answers GET /api/gpus: the "Which GPUs" table of the URL's state.
func (a *app) gpus(c echo.Context) error {
	return a.pageJSON(c, func(p *templates.Page) any { return p.Table })
}

// pageJSON answers with part of the page of the URL's state, or with the
// error that page shows.
func (a *app) pageJSON(c echo.Context, part func(*templates.Page) any) error {
	k := a.catalogFor(c)
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	p, status, err := a.pageIn(c, k)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		// A query that cannot be read sets the page's error; a state the
		// planner refuses, its view's.
		e := apiError{Error: cmp.Or(p.Error, p.View.Error)}
		for _, ch := range p.Choices {
			e.Choices = append(e.Choices, choice{ID: ch.ID, Label: ch.Label})
		}
		return c.JSON(status, e)
	}
	return c.JSON(http.StatusOK, part(&p))
}

func (a *app) models(c echo.Context) error {
	k := a.catalog()
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	return c.JSON(http.StatusOK, k.models)
}

// model answers GET /api/models/:id: one model shape, so a page fetches
// only the model it shows rather than the whole catalog.
func (a *app) model(c echo.Context) error {
	k := a.catalog()
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	m, err := k.model(c.Param("id"))
	if err != nil {
		return jsonError(c, http.StatusNotFound, "", err)
	}
	return c.JSON(http.StatusOK, m)
}

// calibration answers GET /api/calibrations/:id: the calibration :id
// names as --gpu names one (calibrations.Resolve: an id, an id that was
// replaced, a card's name), the community's included; what the resolver
// says about it in the Vramplan-Note header; 300 with the choices for a
// name of several cards, 404 naming the near ids for none.
func (a *app) calibration(c echo.Context) error {
	k := a.catalogFor(c)
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	s := calc.State{GPU: c.Param("id")}
	r, err := k.resolve(&s)
	if err != nil {
		return resolveError(c, "", err)
	}
	setNote(c, r.note)
	return c.JSON(http.StatusOK, r.cal)
}

func (a *app) calibrations(c echo.Context) error {
	k := a.catalogFor(c)
	if k.err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", k.err)
	}
	return c.JSON(http.StatusOK, k.cals)
}
