//go:build !(js && wasm)

// This stub exists so that `go build ./...` and `go vet ./...` pass
// natively without carrying syumai/workers into native binaries: the worker
// is only ever built with GOOS=js GOARCH=wasm, by `make worker`.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "cmd/worker runs on Cloudflare Workers: build it with `make worker`, serve it with `make worker-dev`")
	os.Exit(2)
}
