package web

// This file sets the headers every response carries: what the browser may
// run and load on the app's pages (a Content-Security-Policy that allows
// the app's own scripts, its inline start-up script by hash, and
// WebAssembly), who may frame them (nobody for / and /docs, anyone for
// /embed, which exists to be framed), no MIME sniffing and no referrer;
// CORS for the API and assets that documentation pages on other origins
// load, with its preflight; and no state-changing request from a page of
// another site (sameSite).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/templates"
)

// cspFor returns the Content-Security-Policy of a page; framable pages
// (/embed) may be framed by any origin, the others by none.
func cspFor(scripts string, framable bool) string {
	ancestors := "'none'"
	if framable {
		ancestors = "*"
	}
	return "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'" + scripts +
		"; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'" +
		"; base-uri 'none'; form-action 'self'; frame-ancestors " + ancestors
}

// inlineScript matches an executable inline script: a <script> element
// with no attributes (data blocks carry a type; loaded scripts a src).
var inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// inlineHashes returns the CSP sources of the layout's inline scripts,
// " 'sha256-…'" each, hashed from the layout as it renders, so an edit of
// the script cannot leave the policy blocking it.
func inlineHashes() string {
	var b bytes.Buffer
	ctx := templ.WithChildren(context.Background(), templ.NopComponent)
	if err := templates.Layout("", false).Render(ctx, &b); err != nil {
		panic("web: the layout does not render: " + err.Error())
	}
	return scriptHashes(b.Bytes())
}

// scriptHashes returns the CSP hash sources of the inline scripts in html.
func scriptHashes(html []byte) string {
	var out strings.Builder
	for _, m := range inlineScript.FindAllSubmatch(html, -1) {
		sum := sha256.Sum256(m[1])
		out.WriteString(" 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'")
	}
	return out.String()
}

// secure sets the headers every response carries.
func secure(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		return next(c)
	}
}

// pageHeaders sets a page's policy, cspFor's of scripts, framable or not.
// The policy is made on the first page request: scripts renders the
// layout, which a Workers instance (one per request) answering the API
// need not do.
func pageHeaders(scripts func() string, framable bool) echo.MiddlewareFunc {
	csp := sync.OnceValue(func() string { return cspFor(scripts(), framable) })
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", csp())
			if !framable {
				h.Set("X-Frame-Options", "DENY")
			}
			return next(c)
		}
	}
}

// cors lets documentation pages on other origins load the API and assets
// that the <vram-calculator> element needs. Nothing the app serves depends
// on cookies or credentials, so any origin may read it.
func cors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Access-Control-Allow-Origin", "*")
		return next(c)
	}
}

// errCrossSite is the answer to a state-changing request from another site.
var errCrossSite = errors.New("cross-site request refused: a page of another site cannot upload, delete or withdraw here; " +
	"use this site's own forms, or send it without a browser (vramplan calibrations upload, gpuagent calibrate --upload)")

// sameSite refuses every state-changing request (any method but GET, HEAD
// and OPTIONS) that a browser sends from a page of another site with 403,
// so a third-party page cannot route uploads, deletions or withdrawals
// through its visitors (#31 point 6). POST /api/plan changes nothing and
// is open to every origin, as the reading API is: the <vram-calculator>
// element on documentation pages plans through it.
func sameSite(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodPost && r.URL.Path == "/api/plan" || !crossSite(r) {
			return next(c)
		}
		return jsonError(c, http.StatusForbidden, "", errCrossSite)
	}
}

// crossSite reports whether r changes state and a browser sent it from
// another origin, by net/http's CrossOriginProtection rule, written out
// here because that type's bypass patterns link ServeMux's router (17 KB
// of the worker's app.wasm by gzip -6, which put it over its budget): a
// browser says so in Sec-Fetch-Site (all since 2023), anything but
// same-origin or none; one too old to sends an Origin whose host is not
// the request's. A request with neither header is not a browser's (the
// CLI's uploads, gpuagent calibrate --upload, curl) and passes.
func crossSite(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "":
	case "same-origin", "none":
		return false
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	o, err := url.Parse(origin)
	return err != nil || o.Host != r.Host
}

// preflight answers a CORS preflight for a route that takes methods.
func preflight(methods string) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Access-Control-Allow-Methods", methods)
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "86400")
		h.Set("Allow", methods+", OPTIONS")
		return c.NoContent(http.StatusNoContent)
	}
}
