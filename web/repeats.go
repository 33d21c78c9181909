package web

// This file holds every API query to one reading: a key given twice with
// different values is refused naming the key (calc.CheckKeys), as the
// calculator's own query is, where echo's QueryParam would read the
// first and drop the other unsaid.

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/web/calc"
)

// oneValueEach answers 400 naming the key to a request whose query gives a
// key two different values, or holds an invalid escape; every /api/ route
// runs it, after cors, so another origin reads the refusal.
func oneValueEach(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.URL.RawQuery == "" {
			return next(c)
		}
		var fe *calc.FieldError
		if err := calc.CheckKeys(r.URL.RawQuery); errors.As(err, &fe) {
			return jsonError(c, http.StatusBadRequest, fe.Key, err)
		}
		return next(c)
	}
}
