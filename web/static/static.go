// Package static holds the calculator's browser assets, embedded: the
// hand-written JavaScript and CSS beside this file and the build outputs
// `make wasm` writes into dist (planner.wasm, gguf.wasm, wasm_exec.js).
//
// It is its own package so that only the native server carries a few
// megabytes of WebAssembly: `vramplan serve` passes FS to web.New, while the
// Cloudflare Workers entry leaves web.Deps.Static nil and lets Workers
// static assets serve the same files under the same URLs (make worker copies
// them). dist is git-ignored but for a README, so the embed compiles on a
// clean clone; web answers 503 for a build output that is missing.
package static

import (
	"embed"
	"io/fs"
)

// The patterns name what the browser loads; the Go source is not served.
//
//go:embed *.js *.css dist
var files embed.FS

// FS returns the assets, rooted at this folder: "app.js",
// "dist/planner.wasm". It is read-only and safe for concurrent use.
func FS() fs.FS { return files }
