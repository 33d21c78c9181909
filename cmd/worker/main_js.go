//go:build js && wasm

// Command worker serves the calculator on Cloudflare Workers through
// github.com/syumai/workers: the same web.New handler as `vramplan serve`,
// wired with the embedded catalog and calibration table and, for community
// uploads, the D1 database bound as DB (web/store/d1). Workers static assets
// serve /static/ in front of it (wrangler.toml, make worker), so the worker
// carries no WebAssembly of its own.
//
// The loader (worker.mjs, pool.mjs) keeps a Go instance for many requests,
// one at a time (package bridge), but the Workers runtime may start a fresh
// isolate, and so a fresh instance, for any request: nothing here lives in
// a global. main builds the handler once per instance and serves it; what
// the handler keeps between requests is immutable (the catalog, the
// calibration table, parsed pages) or checked against D1 on each request
// (the community aggregates; docs/architecture.md, "On Workers").
// The upload limits are counted in D1: the defaults, or the Worker
// variables UPLOADS_PER_HOUR (per client) and UPLOADS_PER_DAY (all
// clients), as `vramplan serve --uploads-per-hour/--uploads-per-day` take
// them. The client is the address Cloudflare puts in CF-Connecting-IP,
// hashed with the key in the secret CLIENT_ADDRESS_KEY (`wrangler secret
// put CLIENT_ADDRESS_KEY`), so that D1 holds no key beside the hashes;
// without the secret the key is kept in D1's settings.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/syumai/workers/cloudflare"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/cmd/worker/internal/bridge"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/d1"
)

func main() {
	d := web.Deps{Models: catalog.All, Calibrations: calibrations.All,
		Uploads: web.UploadOptions{ClientHeader: "CF-Connecting-IP", ClientKey: secret("CLIENT_ADDRESS_KEY"),
			PerClientHour: limit("UPLOADS_PER_HOUR"), DailyCap: limit("UPLOADS_PER_DAY")},
		Background: bridge.Background}
	if st, err := d1.Open("DB"); err != nil {
		// The calculator still serves; the upload API answers 503.
		fmt.Fprintf(os.Stderr, "worker: no upload store: %v\n", err)
	} else {
		d.Store = st
	}
	bridge.Serve(web.New(d), planner.MaxDocument) // readBody's most: a document
}

// limit reads a Worker variable holding an upload limit; unset is 0, the
// default.
func limit(name string) int64 {
	v := cloudflare.GetBinding(name)
	if v.IsUndefined() {
		return 0
	}
	n, err := strconv.ParseInt(v.String(), 10, 64)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "worker: %s=%q is not a count; using the default\n", name, v.String())
		return 0
	}
	return n
}

// secret reads a Worker secret; unset is nil.
func secret(name string) []byte {
	v := cloudflare.GetBinding(name)
	if v.IsUndefined() || v.String() == "" {
		return nil
	}
	return []byte(v.String())
}
