package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
)

// render writes a templ component as an HTML response.
func render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(c.Request().Context(), c.Response())
}

// page renders the calculator for the URL's state, embedded or not.
func (a *app) page(embed bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		k := a.catalog()
		if k.err != nil {
			return echo.NewHTTPError(http.StatusServiceUnavailable, k.err.Error())
		}
		p, status := a.pageFor(k, c.QueryString())
		p.Embed = embed
		return render(c, status, templates.Calculator(p))
	}
}

// pageFor builds the page of a query. A query that cannot be read still
// yields a page, of the defaults, with the problem shown and a 400 status.
func (a *app) pageFor(k *catalog, query string) (templates.Page, int) {
	status := http.StatusOK
	p := templates.Page{Models: modelOptions(k), GPUs: gpuOptions(k)}
	s, err := calc.ParseQuery(query)
	if err != nil {
		p.Error, status = err.Error(), http.StatusBadRequest
		s, _ = calc.ParseQuery("")
	}
	m, cal, err := k.resolve(&s)
	if err != nil && p.Error == "" {
		p.Error, status = err.Error(), http.StatusNotFound
	}
	p.View = calc.Calculate(s, m, cal)
	p.Boot = templates.Boot{Calibrations: k.cals, Model: &m}
	p.Title = title(&p.View, m.Name, m.ID)
	return p, status
}

func title(v *calc.View, name, id string) string {
	if name == "" {
		name = id
	}
	return "vramplan · " + name + " · " + v.Verdict
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
		out[i] = templates.Option{ID: c.ID, Label: c.GPU + " · " + c.Platform + " · driver " + c.Driver}
	}
	return out
}

// docs renders the embedding guide, with a live iframe and a live
// <vram-calculator> for the first model and calibration.
func (a *app) docs(c echo.Context) error {
	k := a.catalog()
	if k.err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, k.err.Error())
	}
	return render(c, http.StatusOK, templates.Docs(k.models[0].ID, k.cals[0].ID))
}
