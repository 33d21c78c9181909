//go:build !js

package gguf

import parser "github.com/gpustack/gguf-parser-go"

// readOptions maps the file: gguf-parser-go reads a plain file with one
// system call per field, about a million for an 8B model's header.
func readOptions() []parser.GGUFReadOption {
	return []parser.GGUFReadOption{parser.UseMMap(), parser.SkipLargeMetadata()}
}
