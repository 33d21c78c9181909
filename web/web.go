// Package web is the calculator's web app: one http.Handler that serves the
// templ pages, the JSON API and the static assets (the planner's
// WebAssembly, its JavaScript and CSS). Entry points only wire it: `vramplan
// serve` natively, and cmd/worker on Cloudflare Workers, where the platform
// serves the assets.
//
// Routes:
//
//	GET  /                  the calculator, rendered from the URL's state
//	GET  /embed             the same, iframe-friendly
//	GET  /docs              how to embed it, with both embeddings live
//	GET  /calibrations      every calibration with its provenance, and the
//	                        upload form; POST /calibrations takes the form,
//	                        POST /calibrations/withdraw deletes an upload
//	GET  /api/plan          the plan document for the URL's state
//	POST /api/plan          the plan document for an input document
//	GET  /api/view          the calc.View for the URL's state
//	GET  /api/gpus          its "Which GPUs" table, the calc.GPUsView
//	GET  /api/models        the catalog's model shapes
//	GET  /api/models/:id    one of them
//	GET  /api/calibrations  the calibration table, with the community's
//	POST /api/uploads       upload a calibration (community calibrations)
//	GET  /api/uploads/:id   one upload; DELETE it with its deletion token
//	GET  /api/uploads.jsonl every accepted upload, one JSON object a line
//	GET  /api/community     the upload groups with their aggregates, paged
//	POST /api/observations  upload an engine observation; GET lists them
//	GET  /api/observations/:id  one; DELETE it with its deletion token
//	GET  /api/calibrations/:id  one calibration (:id as --gpu takes it)
//	GET  /static/…          Deps.Static; the built wasm is 503 until `make wasm`
//
// Every GET route answers HEAD too, with the same status and headers; the
// API and assets answer a CORS preflight (OPTIONS) and any origin, and a
// method a route does not take is 405. An unreadable query or input is
// 400 on every route, a model or calibration not in the table 404 (a GPU
// name of several cards 300, with the choices), and a
// request whose client left stops planning (logged as 499). A request
// that changes state, sent by a browser from a page of another site, is
// 403 (headers.go); POST /api/plan changes nothing and is open. Every error,
// echo's own 404 and 405 included, is one JSON shape: {"error": …} with
// "field" where a field is at fault (errors.go).
package web

import (
	"io/fs"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/store"
)

// Deps are what the app needs from the rest of the program. Each source is
// a function so a catalog can be loaded lazily and swapped in tests.
type Deps struct {
	// Models returns the catalog, in the order the picker shows it. An
	// error, like an empty catalog, makes every page and API answer 503.
	Models func() ([]planner.Model, error)
	// Calibrations returns the calibration table.
	Calibrations func() ([]planner.Calibration, error)
	// Static is the asset tree served under /static/ (package web/static's
	// FS). Nil leaves /static/ to the platform, as Workers static assets
	// serve it in front of cmd/worker; on js/wasm it must be nil
	// (static_js.go).
	Static fs.FS
	// Store keeps community calibration uploads (web/store); nil turns the
	// upload API off (503) and leaves the picker to the table.
	Store store.Store
	// Uploads configures the upload API; the zero value is the default.
	Uploads UploadOptions
	// Limits bound the work requests can make the app do at once.
	Limits Limits
	// Background runs f, work a request starts that may outlive its answer
	// (the community aggregates' refresh), and returns at once; nil runs it
	// on a goroutine of its own. cmd/worker keeps the request's Workers
	// context, whose I/O f uses, alive until f returns.
	Background func(f func())
}

// New returns the app's handler. It is safe for concurrent use and keeps no
// state between requests beyond the caches of its deps' results.
func New(d Deps) http.Handler {
	h, _ := newApp(d)
	return h
}

func newApp(d Deps) (http.Handler, *app) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(recoverPanics, secure, sameSite)
	e.HTTPErrorHandler = httpError // errors.go: one shape for every error
	a := &app{deps: d, opts: d.Uploads.withDefaults(), lim: newLimiter(d.Limits),
		serverOnly: d.Static != nil && !exists(d.Static, "dist/planner.wasm")}
	scripts := sync.OnceValue(inlineHashes)
	site, framable := pageHeaders(scripts, false), pageHeaders(scripts, true)
	api := []echo.MiddlewareFunc{cors, oneValueEach}
	e.Match(getOrHead, "/", a.page(false), site)
	e.Match(getOrHead, "/embed", a.page(true), framable)
	e.Match(getOrHead, "/docs", a.docs, site)
	e.Match(getOrHead, "/calibrations", a.calibrationsPage, site)
	e.POST("/calibrations", a.uploadForm, site)
	e.POST("/calibrations/withdraw", a.withdrawForm, site)
	e.Match(getOrHead, "/api/plan", a.planQuery, api...)
	e.POST("/api/plan", a.planInput, api...)
	e.OPTIONS("/api/plan", preflight("GET, HEAD, POST"), api...)
	for path, h := range map[string]echo.HandlerFunc{"/view": a.view, "/gpus": a.gpus, "/models": a.models,
		"/models/:id": a.model, "/calibrations": a.calibrations} {
		e.Match(getOrHead, "/api"+path, h, api...)
		e.OPTIONS("/api"+path, preflight("GET, HEAD"), api...)
	}
	e.POST("/api/uploads", a.upload, api...)
	e.Match(getOrHead, "/api/uploads.jsonl", a.exportUploads, api...)
	e.Match(getOrHead, "/api/uploads/:id", a.getUpload, api...)
	e.DELETE("/api/uploads/:id", a.deleteUpload, api...)
	e.Match(getOrHead, "/api/community", a.communityList, api...)
	e.POST("/api/observations", a.postObservation, api...)
	e.Match(getOrHead, "/api/observations", a.listObservations, api...)
	e.Match(getOrHead, "/api/observations/:id", a.getObservation, api...)
	e.DELETE("/api/observations/:id", a.deleteObservation, api...)
	e.Match(getOrHead, "/api/calibrations/:id", a.calibration, api...)
	e.OPTIONS("/api/calibrations/:id", preflight("GET, HEAD"), api...)
	if d.Static != nil {
		serveStatic(e, d.Static)
	} else { // the platform serves the assets; a path that reaches the app is none of them
		e.Match(getOrHead, "/static/*", func(echo.Context) error { return echo.ErrNotFound }, api...)
	}
	return e, a
}

// exists reports whether fsys holds the file name.
func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// getOrHead are the methods of a route that reads: net/http's server
// discards the body it writes for HEAD.
var getOrHead = []string{http.MethodGet, http.MethodHead}

// app holds the deps and the catalog read from them once.
type app struct {
	deps Deps
	lim  *limiter
	once sync.Once
	cat  catalog
	// The upload API's options, client-address key, last sweep and
	// aggregates.
	opts  UploadOptions
	key   clientKey
	swept int64
	comm  communityCache
	// serverOnly is an asset tree without the planner's WebAssembly (a
	// plain go build): pages are planned on the server and say so.
	serverOnly bool
}

// apiError is the body of every API error.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	// Choices are the entries an ambiguous GPU name could mean (resolve.go).
	Choices []choice `json:"choices,omitempty"`
}

func jsonError(c echo.Context, status int, field string, err error) error {
	return c.JSON(status, apiError{Error: clip(err.Error()), Field: clip(field)})
}
