//go:build js && wasm

// Command worker serves the calculator on Cloudflare Workers through
// github.com/syumai/workers: the same web.New handler as `vramplan serve`,
// wired with the embedded catalog and calibration table and, for community
// uploads, the D1 database bound as DB (web/store/d1). Workers static assets
// serve /static/ in front of it (wrangler.toml, make worker), so the worker
// carries no WebAssembly of its own.
//
// The Workers runtime may start a fresh Go instance for each request, so
// nothing here lives in a global: main builds the handler and serves it.
// The upload limits are the defaults, counted in D1; the client is the
// address Cloudflare puts in CF-Connecting-IP.
package main

import (
	"fmt"
	"os"

	"github.com/syumai/workers"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/d1"
)

func main() {
	d := web.Deps{Models: catalog.All, Calibrations: calibrations.All,
		Uploads: web.UploadOptions{ClientHeader: "CF-Connecting-IP"}}
	if st, err := d1.Open("DB"); err != nil {
		// The calculator still serves; the upload API answers 503.
		fmt.Fprintf(os.Stderr, "worker: no upload store: %v\n", err)
	} else {
		d.Store = st
	}
	workers.Serve(web.New(d))
}
