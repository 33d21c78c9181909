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
