package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner/gguf/gguftest"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// TestSplit reads a model split in three files, by path and through ReadAt.
func TestSplit(t *testing.T) {
	f, err := gguftest.FromConfig(readConfig(t, "Qwen__Qwen3-30B-A3B"), "q4_k_m", false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.gguf")
	f.Write(whole)
	want, _ := Read(whole)
	var parts []Part
	for i, s := range f.Split(3) {
		s.Write(filepath.Join(dir, fmt.Sprintf("qwen3-30b-a3b-q4_k_m-%05d-of-00003.gguf", i+1)))
		r, size := s.Reader()
		parts = append(parts, Part{r, size})
	}
	got, err := Read(filepath.Join(dir, "qwen3-30b-a3b-q4_k_m-00001-of-00003.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Weights.Bytes != want.Weights.Bytes || !reflect.DeepEqual(got.Layers, want.Layers) {
		t.Errorf("Read(split) = %d bytes, %+v; want %d bytes, %+v", got.Weights.Bytes, got.Layers, want.Weights.Bytes, want.Layers)
	}
	at, err := ReadAt(parts, Options{})
	got.Source = ""
	if err != nil || !reflect.DeepEqual(at, got) {
		t.Errorf("ReadAt(split) = %v, want the same model as Read", err)
	}
}

// header encodes a GGUF preamble with the given counts, then body.
func header(tensors, kvs uint64, body ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x46554747)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, tensors)
	b = binary.LittleEndian.AppendUint64(b, kvs)
	return append(b, bytes.Join(body, nil)...)
}

func str(s string) []byte { return append(binary.LittleEndian.AppendUint64(nil, uint64(len(s))), s...) }
func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func tiny() []byte {
	f := &gguftest.File{KVs: []arch.KV{{Key: "general.architecture", Value: "llama"}, {Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(64)}, {Key: "llama.attention.head_count", Value: uint32(4)}}}
	f.Tensors = []gguftest.Tensor{{Name: "token_embd.weight", Dims: []uint64{64, 10}, Type: 0}}
	h, size := f.Header()
	return append(h, make([]byte, size-int64(len(h)))...)
}

// badFiles are truncated, malformed and hostile headers.
var badFiles = []struct {
	name string
	data []byte
	want string
}{
	{"empty", nil, "truncated"},
	{"wrong magic", append([]byte("GGML"), make([]byte, 20)...), "not a GGUF file"},
	{"version 9", append(header(0, 0)[:4], u32(9)...), "unsupported GGUF version 9: llama.cpp reads versions 1 to 3"},
	{"no version", header(0, 0)[:6], "read version: truncated"},
	{"2^40 tensors", header(1<<40, 0), "more than"},
	{"2^40 kvs", header(0, 1<<40), "more than"},
	{"1 TB string", header(0, 1, u64(1<<40), make([]byte, 64)), "exceeds"},
	{"huge array", header(0, 1, str("k"), u32(9), u32(4), u64(1<<40), make([]byte, 64)), "exceeds"},
	{"deep arrays", header(0, 1, str("k"), bytes.Repeat(append(u32(9), u32(9)...), 8)[4:], u64(1), make([]byte, 64)), "array"},
	{"bad type", header(0, 1, str("k"), u32(99), make([]byte, 64)), "invalid metadata value type"},
	{"5 dims", header(1, 0, str("t"), u32(5), make([]byte, 64)), "dimensions"},
	{"unknown ggml type", header(1, 0, str("t"), u32(1), u64(4), u32(999), u64(0), make([]byte, 64)), "unknown type"},
	{"lying size", header(1, 0, str("t"), u32(1), u64(1<<30), u32(0), u64(0), make([]byte, 64)), "is it truncated"},
	{"overflowing dims", header(1, 0, str("t"), u32(4), u64(1<<40), u64(1<<40), u64(1<<40), u64(1<<40), u32(0), u64(0), make([]byte, 64)), "malformed GGUF"},
	{"truncated tiny", tiny()[:100], "truncated"},
	{"no architecture", header(0, 0, make([]byte, 64)), "general.architecture"},
}

// TestBadFiles checks that each bad header gets a clear error, through
// ReadAt and through Read's gguf-parser-go path, and never a panic.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range badFiles {
		_, err := ReadAt([]Part{{bytes.NewReader(tt.data), int64(len(tt.data))}}, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("ReadAt(%s) = %v, want an error containing %q (and no <nil>)", tt.name, err, tt.want)
		}
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".gguf")
		os.WriteFile(path, tt.data, 0o644)
		if _, err := Read(path); err == nil {
			t.Errorf("Read(%s) = nil error, want an error", tt.name)
		}
	}
}

func TestTiny(t *testing.T) {
	data := tiny()
	m, err := ReadAt([]Part{{bytes.NewReader(data), int64(len(data))}}, Options{})
	if err != nil || m.VocabSize != 10 || m.Layers[0].KVHeads != 4 {
		t.Errorf("ReadAt(tiny) = %+v, %v", m, err)
	}
}
