package web

// This file gives every error the app answers one shape, apiError, the
// routes' own and echo's alike: a path no route serves (404), a method a
// route does not take (405, with Allow), a body past the limit (413), a
// panic recovered (500). echo's default handler would answer those as
// {"message": "Not Found"}, which a client reading "error" does not see.

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// httpError is the app's echo.HTTPErrorHandler.
func httpError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if errors.Is(err, errGone) {
		c.NoContent(statusClientClosed)
		return
	}
	status, msg := describe(err, c.Request(), c.Response().Header().Get(echo.HeaderAllow))
	if c.Request().Method == http.MethodHead {
		c.NoContent(status)
		return
	}
	c.JSON(status, apiError{Error: msg})
}

// describe returns the status and message of err. An *echo.HTTPError keeps
// its status, and its message unless it is only the status's name, which
// becomes a sentence about the request (allow is the methods a 405's route
// takes); any other error is a 500 whose text stays in the server.
func describe(err error, r *http.Request, allow string) (int, string) {
	var he *echo.HTTPError
	if !errors.As(err, &he) {
		return http.StatusInternalServerError, "internal server error"
	}
	if inner, ok := he.Internal.(*echo.HTTPError); ok {
		he = inner
	}
	msg := fmt.Sprint(he.Message)
	if e, ok := he.Message.(error); ok {
		msg = e.Error()
	}
	if msg != http.StatusText(he.Code) && msg != "" {
		return he.Code, msg
	}
	switch he.Code {
	case http.StatusNotFound:
		return he.Code, fmt.Sprintf("nothing is served at %s", r.URL.Path)
	case http.StatusMethodNotAllowed:
		return he.Code, fmt.Sprintf("%s does not take %s; it takes %s", r.URL.Path, r.Method, allow)
	}
	return he.Code, http.StatusText(he.Code)
}
