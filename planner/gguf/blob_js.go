//go:build js && wasm

package gguf

// This file lets ReadAt read a file the user picked in a browser: a
// JavaScript Blob or File behind an io.ReaderAt. Each ReadAt crosses into
// JavaScript and awaits a promise, so ReadAt's read-ahead blocks are what
// keep the header read fast.

import (
	"fmt"
	"io"
	"syscall/js"
)

// Blob is an io.ReaderAt over a JavaScript Blob or File. Each call awaits
// blob.slice(off, off+len(p)).arrayBuffer(), so it must not run on the
// goroutine that handles JavaScript callbacks (a js.FuncOf handler's own
// goroutine): start a goroutine for the read. Concurrent use is safe.
type Blob struct {
	v    js.Value
	size int64
}

// NewBlob returns a reader over the Blob or File v and its size in bytes.
func NewBlob(v js.Value) (*Blob, int64) {
	b := &Blob{v: v, size: int64(v.Get("size").Float())}
	return b, b.size
}

// ReadAt reads len(p) bytes at off, or up to the end of the blob and io.EOF.
func (b *Blob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= b.size {
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), b.size)
	buf, err := await(b.v.Call("slice", float64(off), float64(end)).Call("arrayBuffer"))
	if err != nil {
		return 0, fmt.Errorf("read %d bytes at %d: %w", end-off, off, err)
	}
	n := js.CopyBytesToGo(p, js.Global().Get("Uint8Array").New(buf))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// await blocks until promise settles and returns its value or its error.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{v: args[0]}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{err: fmt.Errorf("%s", args[0].Call("toString").String())}
		return nil
	})
	defer then.Release()
	defer catch.Release()
	promise.Call("then", then, catch)
	r := <-done
	return r.v, r.err
}
