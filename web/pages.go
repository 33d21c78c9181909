package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
)

// render writes a templ component as an HTML response. The page is
// rendered into memory first and written at once: templ writes it in
// thousands of small pieces, and on Workers each write to the response is
// a round trip to JavaScript (syumai/workers streams the body through an
// unbuffered pipe). A component that fails is then an error response, not
// half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var b bytes.Buffer
	if err := comp.Render(c.Request().Context(), &b); err != nil {
		return err
	}
	return c.HTMLBlob(status, b.Bytes())
}

// page renders the calculator for the URL's state, embedded or not.
func (a *app) page(embed bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		k := a.catalogFor(c)
		if k.err != nil {
			return echo.NewHTTPError(http.StatusServiceUnavailable, k.err.Error())
		}
		p, status, err := a.pageIn(c, k)
		if err != nil {
			return err
		}
		p.Embed, p.ServerOnly = embed, a.serverOnly
		if len(p.Choices) > 0 {
			return render(c, status, templates.Chooser(p))
		}
		return render(c, status, templates.Calculator(p))
	}
}

// pageIn builds the page of the request's query in a planning slot.
func (a *app) pageIn(c echo.Context, k *catalog) (p templates.Page, status int, err error) {
	err = a.lim.plan(c.Request().Context(), func() error {
		p, status = a.pageFor(k, c.QueryString())
		return nil
	})
	return p, status, err
}

// pageFor builds the page of a query. A query that cannot be read, or that
// names a model or GPU the server does not have, yields a page that shows
// the controls as the query set them and says what is wrong, with a 400 or
// 404 status, and plans nothing: a plan of some other setup would read as
// the answer. A GPU name of several cards yields the choices, 300: the
// page is then the chooser.
// A state the planner refuses (a negative length) is a 400 too, as on
// /api/plan.
func (a *app) pageFor(k *catalog, query string) (templates.Page, int) {
	p := templates.Page{Models: modelOptions(k), GPUs: gpuOptions(k), Boot: templates.Boot{Calibrations: k.cals}}
	s, err := calc.ParseQuery(query)
	if err != nil {
		return unplanned(p, s, err, http.StatusBadRequest)
	}
	r, err := k.resolve(&s)
	if err != nil {
		chooser(&p, s, err)
		return unplanned(p, s, err, notFoundStatus(err))
	}
	p.View = calc.Calculate(s, r.model, r.cal)
	if p.View.Error == "" {
		t := calc.GPUsTable(s, &r.model, k.cals)
		p.Table = &t
	}
	p.Boot.Model, p.GPUNote = &r.model, r.note
	p.Title = p.View.Title
	if p.View.Error != "" {
		return p, http.StatusBadRequest
	}
	return p, http.StatusOK
}

// unplanned is the page of a state that cannot be planned.
func unplanned(p templates.Page, s calc.State, err error, status int) (templates.Page, int) {
	p.View = calc.View{Query: s.Encode(), State: s}
	p.Error = clip(calc.Words(err))
	p.Title = calc.NotPlannedTitle(p.Error)
	return p, status
}

func modelOptions(k *catalog) []templates.Option {
	out := make([]templates.Option, len(k.models))
	for i, m := range k.models {
		label := m.Name
		if label == "" {
			label = m.ID
		}
		out[i] = templates.Option{ID: m.ID, Label: label}
	}
	return out
}

func gpuOptions(k *catalog) []templates.Option {
	out := make([]templates.Option, len(k.cals))
	for i, c := range k.cals {
		out[i] = templates.Option{ID: c.ID, Label: gpuLabel(&c)}
	}
	return out
}

// gpuLabel is a calibration as the GPU picker names it: the card, then
// where its figures come from, so a closed picker that cuts the label short
// still says "estimated"; an estimated entry names no driver, since it
// measured none.
func gpuLabel(c *planner.Calibration) string {
	if c.Kind() == planner.CalibrationEstimated {
		return c.GPU + " · " + kindLabel(c) + " · " + c.Platform
	}
	return c.GPU + " · " + kindLabel(c) + " · " + c.Platform + " · driver " + c.Driver
}

// docs renders the embedding guide, with a live iframe and a live
// <vram-calculator> for the first model and calibration.
func (a *app) docs(c echo.Context) error {
	k := a.catalogFor(c)
	if k.err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, k.err.Error())
	}
	return render(c, http.StatusOK, templates.Docs(k.models[0].ID, k.cals[0].ID, a.serverOnly))
}
