//go:build js && wasm

package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"syscall/js"
)

// Serve serves h to the loader until the program ends, and never returns.
// maxBody is the most body bytes any route of h reads: the loader reads at
// most maxBody+1 of a request's body (enough for a route to see that it is
// too large) before it hands the request over.
//
// The loader gives each instance one request at a time (pool.mjs): the
// Workers runtime cancels a promise settled from another request's context,
// and goroutines of two requests in one instance would settle each other's.
// So a request's env and ctx, which the loader puts on the instance's
// runtime context object for syumai/workers' cloudflare packages to read,
// are those of the one request being served.
func Serve(h http.Handler, maxBody int64) {
	binding := js.Global().Get("context").Get("binding")
	serve := js.FuncOf(func(_ js.Value, args []js.Value) any {
		// method, url, header lines, body (Uint8Array or null), done, settled
		ctx, cancel := context.WithCancel(context.Background())
		current.set(cancel)
		go answer(ctx, cancel, h, args[0].String(), args[1].String(), args[2].String(), bytesOf(args[3]), args[4], args[5])
		return nil
	})
	binding.Set("serve", serve)
	binding.Set("cancel", js.FuncOf(func(js.Value, []js.Value) any { current.cancel(); return nil }))
	binding.Set("maxBody", maxBody)
	binding.Call("ready")
	select {} // the instance lives as long as the isolate keeps it
}

// answer serves one request and calls done(status, statusText, header
// lines, body or null), then, once the work it started in the background
// has finished, settled().
func answer(ctx context.Context, cancel context.CancelFunc, h http.Handler, method, url, lines string, body []byte, done, settled js.Value) {
	defer current.set(nil)
	defer cancel()
	r, err := newRequest(ctx, method, url, lines, body)
	if err != nil {
		msg, _ := json.Marshal(map[string]string{"error": err.Error()}) // the app's error shape
		done.Invoke(http.StatusBadRequest, http.StatusText(http.StatusBadRequest),
			"Content-Type\napplication/json", bytesTo(append(msg, '\n')))
		settled.Invoke()
		return
	}
	w := newRecorder()
	h.ServeHTTP(w, r)
	status, hl, b := w.answer(method)
	done.Invoke(status, http.StatusText(status), hl, bytesTo(b))
	background.Wait()
	settled.Invoke()
}

// current cancels the context of the request being served: the loader
// calls the binding's cancel() when the runtime aborts the request's signal
// (its client went away), so the handler stops, as natively when a client
// disconnects, and frees the instance rather than hold it until the loader
// gives it up as lost.
var current canceller

// canceller holds the cancel func of the request being served, nil
// between requests. It is safe for concurrent use.
type canceller struct {
	mu sync.Mutex
	f  context.CancelFunc
}

func (c *canceller) set(f context.CancelFunc) {
	c.mu.Lock()
	c.f = f
	c.mu.Unlock()
}

// cancel cancels the request being served, if there is one.
func (c *canceller) cancel() {
	c.mu.Lock()
	f := c.f
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

// background counts the work the request being served started through
// Background (the instance serves one request at a time, so that work is
// this request's); it is zero between requests.
var background sync.WaitGroup

// Background runs f on a goroutine of its own, as work of the request being
// served that may outlive its answer: the loader gives the instance no
// other request, and keeps this request's Workers context (whose I/O f
// uses: a promise settles only in the request that made it) alive through
// ctx.waitUntil, until f returns. It is web.Deps.Background for cmd/worker.
func Background(f func()) {
	background.Add(1)
	go func() {
		defer background.Done()
		f()
	}()
}

var uint8Array = js.Global().Get("Uint8Array")

// bytesOf copies a Uint8Array out of JavaScript; null is nil.
func bytesOf(v js.Value) []byte {
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return b
}

// bytesTo copies b into a new Uint8Array; nil is null.
func bytesTo(b []byte) any {
	if b == nil {
		return nil
	}
	a := uint8Array.New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}
