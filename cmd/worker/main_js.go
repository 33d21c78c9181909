//go:build js && wasm

// Command worker serves the calculator on Cloudflare Workers through
// github.com/syumai/workers: the same web.New handler as `vramplan serve`,
// wired with the embedded catalog and calibration table. Workers static
// assets serve /static/ in front of it (wrangler.toml, make worker), so the
// worker carries no WebAssembly of its own.
//
// The Workers runtime may start a fresh Go instance for each request, so
// nothing here lives in a global: main builds the handler and serves it.
package main

import (
	"github.com/syumai/workers"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
)

func main() {
	workers.Serve(web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All}))
}
