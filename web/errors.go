package web

// This file gives every error the app answers one shape, apiError, the
// routes' own and echo's alike: a path no route serves (404), a method a
// route does not take (405, with Allow), a body past the limit (413), a
// panic recovered (500). echo's default handler would answer those as
// {"message": "Not Found"}, which a client reading "error" does not see.
//
// No answer carries more than maxEcho bytes of any one message or field
// name: an error about a hostile request quotes it, and a 100 KB unknown
// field, model id or GPU id came back whole (#31 point 10). What is cut
// says how much was; the values a message quotes are quoted with %q, so
// their control characters come back escaped, and JSON and the pages
// escape the rest.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations/community"
)

// maxEcho bounds the bytes of a message or a field name an answer carries,
// as gpuagent's errors are bounded (wire.MaxMessage).
const maxEcho = 512

// clip returns s cut to maxEcho bytes on a character boundary, saying how
// many bytes were cut.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes more)", strings.ToValidUTF8(s[:maxEcho], ""), len(s)-maxEcho)
}

// clipReasons returns rs with every field and message clipped.
func clipReasons(rs []community.Reason) []community.Reason {
	if len(rs) == 0 {
		return rs
	}
	out := make([]community.Reason, len(rs))
	for i, r := range rs {
		out[i] = community.Reason{Field: clip(r.Field), Msg: clip(r.Msg)}
	}
	return out
}

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
	c.JSON(status, apiError{Error: clip(msg)})
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
		return he.Code, fmt.Sprintf("nothing is served at %q", r.URL.Path)
	case http.StatusMethodNotAllowed:
		return he.Code, fmt.Sprintf("%q does not take %s; it takes %s", r.URL.Path, r.Method, allow)
	}
	return he.Code, http.StatusText(he.Code)
}
