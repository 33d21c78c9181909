//go:build js

package gguf

import parser "github.com/gpustack/gguf-parser-go"

// readOptions does without mmap, which gguf-parser-go does not support under
// js/wasm. In a browser, ReadAt is the fast path; this one serves Node.
func readOptions() []parser.GGUFReadOption {
	return []parser.GGUFReadOption{parser.SkipLargeMetadata()}
}
