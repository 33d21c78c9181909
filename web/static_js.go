//go:build js && wasm

package web

import (
	"io/fs"

	"github.com/labstack/echo/v4"
)

// On js/wasm the app is cmd/worker, and Workers static assets serve
// /static/ in front of it (wrangler.toml), so the worker links no asset
// server of its own: static.go's cache and ETags, its gzip encoder and
// net/http's range code are 48 KiB of the worker's gzip by wrangler's
// measure, against the free plan's 3 MB (docs/benchmarks.md, "Worker").
// Giving the app an asset tree there is a wiring mistake, refused when the
// app is made.
func serveStatic(*echo.Echo, fs.FS) {
	panic("web: Deps.Static is set on js/wasm, where Workers static assets serve /static/ in front of cmd/worker, which carries no asset server")
}
