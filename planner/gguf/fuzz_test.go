package gguf

import (
	"bytes"
	"testing"
)

// FuzzReadAt feeds arbitrary files to ReadAt and ReadVisionAt: each must
// return a result or an error, never panic, and read a model with layers.
// The seed corpus is testdata/fuzz/FuzzReadAt.
func FuzzReadAt(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p := Part{bytes.NewReader(data), int64(len(data))}
		m, err := ReadAt([]Part{p}, Options{BlockSize: 64})
		if err == nil && len(m.Layers) == 0 {
			t.Errorf("ReadAt(%q) = a model without layers", data)
		}
		ReadVisionAt(p, Options{})
	})
}
