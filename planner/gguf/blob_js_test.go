//go:build js && wasm

package gguf

import (
	"syscall/js"
	"testing"
)

// TestBlob reads a GGUF held in a JavaScript Blob, as a browser holds a
// file the user picked (run with GOOS=js GOARCH=wasm go test -run Blob).
func TestBlob(t *testing.T) {
	data := tiny()
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	blob := js.Global().Get("Blob").New([]any{arr})
	r, size := NewBlob(blob)
	if size != int64(len(data)) {
		t.Fatalf("NewBlob size = %d, want %d", size, len(data))
	}
	m, err := ReadAt([]Part{{r, size}}, Options{BlockSize: 4 << 20})
	if err != nil || m.VocabSize != 10 || m.Layers[0].KVHeads != 4 {
		t.Errorf("ReadAt(Blob) = %+v, %v", m, err)
	}
	if _, err := ReadAt([]Part{{r, size - 100}}, Options{}); err == nil {
		t.Errorf("ReadAt(Blob with a short size) = nil error, want one")
	}
}

// TestBlobReads reads a Blob front to back in blocks of several sizes,
// then ranges out of order and past its end.
func TestBlobReads(t *testing.T) {
	data := tiny()
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	r, size := NewBlob(js.Global().Get("Blob").New([]any{arr}))
	for _, block := range []int{7, 64, 1 << 20} {
		m, err := ReadAt([]Part{{r, size}}, Options{BlockSize: block})
		if err != nil || m.VocabSize != 10 {
			t.Errorf("ReadAt(Blob, %d-byte blocks) = %+v, %v", block, m, err)
		}
	}
	for _, rng := range [][2]int{{0, 10}, {10, 20}, {12, 15}, {20, 30}, {5, 9}, {int(size) - 3, int(size) + 5}} {
		p := make([]byte, rng[1]-rng[0])
		n, err := r.ReadAt(p, int64(rng[0]))
		want := data[rng[0]:min(rng[1], len(data))]
		if n != len(want) || string(p[:n]) != string(want) || (n < len(p)) != (err != nil) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d bytes of the blob", len(p), rng[0], n, err, len(want))
		}
	}
}
