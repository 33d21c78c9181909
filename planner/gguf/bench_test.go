package gguf

import (
	"testing"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner/gguf/gguftest"
)

// BenchmarkRead parses an 8B-sized GGUF header (Llama-3.1-8B Q4_K_M, 292
// tensors, a 128k-token tokenizer with 256k merges) from a path.
func BenchmarkRead(b *testing.B) {
	path, _ := writeFixture(b, "meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", true)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadAt decodes the same header through an io.ReaderAt in 1 MiB blocks.
func BenchmarkReadAt(b *testing.B) {
	_, f := writeFixture(b, "meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", true)
	r, size := f.Reader()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadAt([]Part{{r, size}}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseGGUFFile is gguf-parser-go alone on the same file, for reference.
func BenchmarkParseGGUFFile(b *testing.B) {
	path, _ := writeFixture(b, "meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", true)
	b.ResetTimer()
	for b.Loop() {
		if _, err := parser.ParseGGUFFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = gguftest.Tokenizer

func BenchmarkParseGGUFFileMMap(b *testing.B) {
	path, _ := writeFixture(b, "meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", true)
	b.ResetTimer()
	for b.Loop() {
		if _, err := parser.ParseGGUFFile(path, parser.UseMMap()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseGGUFFileMMapSkip(b *testing.B) {
	path, _ := writeFixture(b, "meta-llama__Llama-3.1-8B-Instruct", "q4_k_m", true)
	b.ResetTimer()
	for b.Loop() {
		if _, err := parser.ParseGGUFFile(path, parser.UseMMap(), parser.SkipLargeMetadata()); err != nil {
			b.Fatal(err)
		}
	}
}
