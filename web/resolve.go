package web

// This file answers a GPU name that names several cards ("h100": the PCIe
// and the SXM card) or none. A page answers 300 Multiple Choices with a
// chooser (templates.Chooser): links to the same state on each card; the
// API answers 300 with the choices in its error, which <vram-calculator>
// shows; a name that names nothing is 404 with the nearest ids.

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/planner/names"
	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
)

// choice is one entry an ambiguous GPU name could mean, as the API lists it.
type choice struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// choicesOf returns the entries err, a resolution error, lists for a
// person to choose from: none unless it is an ambiguous GPU name.
func choicesOf(err error) []choice {
	var ne *names.Error
	var ge *gpuError
	if !errors.As(err, &ge) || !errors.As(err, &ne) || len(ne.Labels) != len(ne.Matches) || len(ne.Matches) < 2 {
		return nil
	}
	out := make([]choice, len(ne.Matches))
	for i, id := range ne.Matches {
		out[i] = choice{ID: id, Label: ne.Labels[i]}
	}
	return out
}

// notFoundStatus is the status of a resolution error: 300 for a GPU name
// with choices, else 404.
func notFoundStatus(err error) int {
	if choicesOf(err) != nil {
		return http.StatusMultipleChoices
	}
	return http.StatusNotFound
}

// resolveError answers a resolution error as the API does: the error, the
// key at fault and, for an ambiguous GPU name, the choices; the error and
// the key are clipped as every error is (errors.go).
func resolveError(c echo.Context, field string, err error) error {
	return c.JSON(notFoundStatus(err), apiError{Error: clip(err.Error()), Field: clip(field), Choices: choicesOf(err)})
}

// chooser fills p's choices for an ambiguous GPU name in the state s:
// each the state with that GPU.
func chooser(p *templates.Page, s calc.State, err error) {
	for _, ch := range choicesOf(err) {
		s.GPU = ch.ID
		p.Choices = append(p.Choices, templates.Choice{ID: ch.ID, Label: ch.Label, Href: "?" + s.Encode(), Text: ch.Label + " (" + ch.ID + ")"})
	}
}

// setNote sends what the resolver said about a GPU name (resolution.note)
// in the Vramplan-Note header, percent-encoded, for the API's callers.
func setNote(c echo.Context, note string) {
	if note == "" {
		return
	}
	h := c.Response().Header()
	h.Set("Vramplan-Note", url.PathEscape(note))
	h.Set("Access-Control-Expose-Headers", "Vramplan-Note")
}
