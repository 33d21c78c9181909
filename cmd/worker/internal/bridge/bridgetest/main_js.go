//go:build js && wasm

// Command bridgetest is a worker that shows the loader (cmd/worker's
// worker.mjs and pool.mjs) at work, for web/conformance/loader.test.mjs:
// which instance served a request and how many it has served, a request
// that holds its instance a while (in its handler or in the background),
// the request's Worker variables, and a program that panics or exits
// mid-request. `make loadertest` builds it into build/loadertest with the
// calculator's loader; it is no part of the calculator.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/syumai/workers/cloudflare"

	"github.com/vramplan/vramplan/cmd/worker/internal/bridge"
	"github.com/vramplan/vramplan/planner"
)

func main() {
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:]) // this instance's name
	var served atomic.Int64
	mux := http.NewServeMux()
	// GET /instance?sleep=MS answers "ID N": the instance and the requests
	// it has served, this one included, after holding it MS ms.
	mux.HandleFunc("GET /instance", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		ms, _ := strconv.Atoi(r.URL.Query().Get("sleep"))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		fmt.Fprintf(w, "%s %d\n", id, n)
	})
	// GET /var/NAME answers the request's Worker variable NAME.
	mux.HandleFunc("GET /var/{name}", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		fmt.Fprintln(w, cloudflare.Getenv(r.PathValue("name")))
	})
	// POST /body answers the body's length and its first and last byte.
	mux.HandleFunc("POST /body", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		b, err := io.ReadAll(r.Body)
		if err != nil || len(b) == 0 {
			http.Error(w, fmt.Sprint("no body: ", err), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%d %c %c %s\n", len(b), b[0], b[len(b)-1], r.Header.Get("X-Test"))
	})
	// GET /later?sleep=MS answers "ID N" at once and holds its instance MS
	// ms more, in the background.
	mux.HandleFunc("GET /later", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		ms, _ := strconv.Atoi(r.URL.Query().Get("sleep"))
		bridge.Background(func() { time.Sleep(time.Duration(ms) * time.Millisecond) })
		fmt.Fprintf(w, "%s %d\n", id, n)
	})
	// GET /panic panics outside the handler while the request waits.
	mux.HandleFunc("GET /panic", func(w http.ResponseWriter, r *http.Request) {
		go func() { panic("bridgetest: asked to panic") }()
		<-r.Context().Done()
	})
	// GET /wait?ms=MS holds its instance until its request's context is
	// done (the loader cancels it when the request's signal aborts) or MS
	// ms pass, and answers "ID cancelled" or "ID not cancelled".
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-r.Context().Done():
			fmt.Fprintf(w, "%s cancelled\n", id)
		case <-time.After(time.Duration(ms) * time.Millisecond):
			fmt.Fprintf(w, "%s not cancelled\n", id)
		}
	})
	// GET /exit ends the program mid-request.
	mux.HandleFunc("GET /exit", func(http.ResponseWriter, *http.Request) { os.Exit(3) })
	bridge.Serve(mux, planner.MaxDocument)
}
