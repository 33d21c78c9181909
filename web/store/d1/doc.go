// Package d1 implements store.Store on Cloudflare D1, through the
// database/sql driver of github.com/syumai/workers (cloudflare/d1): the
// store of the Workers entry, cmd/worker. It runs the statements of package
// store, as web/store/sqlite does, one per call: D1's driver has no
// transactions, and every write the interface asks for is one statement
// that is safe to repeat.
//
// The schema is store.Migrations, applied by `wrangler d1 migrations apply`
// (wrangler.toml points at web/store/migrations), not by the worker: a
// worker may start a fresh instance for every request, and each would pay
// for the check.
//
// It builds only for GOOS=js GOARCH=wasm, inside a worker; this file, with
// no build constraint, keeps the package visible to native tools.
package d1
