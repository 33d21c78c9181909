package gguf

// These tests hold the GGUF findings of issue 13's red-team run: counts
// checked before anything is allocated, per-layer arrays bounded by the
// layer count, non-regular files refused unread, and layouts llama.cpp
// refuses refused here too.

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner/gguf/gguftest"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCountsCheckedFirst holds finding 4: a small header whose counts
// claim millions of tensors is refused or read without a table for them.
// The CLI's path went through gguf-parser-go, which sizes its tensor table
// from split.tensors.count before reading a tensor (file.go: make(
// GGUFTensorInfos, 0, split.tensors.count)); a 183-byte header killed the
// process. Both --model (Read) and --mmproj (ReadVision) are checked.
func TestCountsCheckedFirst(t *testing.T) {
	split := header(0, 2, str("general.architecture"), u32(8), str("llama"),
		str("split.tensors.count"), u32(10), u64(1<<21), make([]byte, 64))
	counts := header(1<<20, 0, make([]byte, 159))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{{"split.tensors.count 2^21", split, "llama"}, {"2^20 tensors", counts, "more than a"}} {
		path := writeTemp(t, "counts.gguf", tc.data)
		for name, read := range map[string]func() error{
			"Read":       func() error { _, err := Read(path); return err },
			"ReadVision": func() error { _, err := ReadVision(path); return err },
		} {
			var err error
			if n := allocated(func() { err = read() }); n > 1<<20 {
				t.Errorf("%s(%d-byte file, %s) allocated %d bytes, want under 1 MiB", name, len(tc.data), tc.name, n)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s(%s) = %v, want an error containing %q", name, tc.name, err, tc.want)
			}
		}
	}
}

// TestPerLayerArrayBounded holds finding 5: a per-layer array longer than
// any model's layer count is refused, in memory a small multiple of the
// file (a 64 MiB file took 1.19 GB).
func TestPerLayerArrayBounded(t *testing.T) {
	const n = 1 << 20
	data := header(0, 2, str("general.architecture"), u32(8), str("llama"),
		str("llama.attention.head_count_kv"), u32(9), u32(4), u64(n), make([]byte, 4*n))
	path := writeTemp(t, "array.gguf", data)
	var err error
	if got := allocated(func() { _, err = Read(path) }); got > uint64(2*len(data)) {
		t.Errorf("Read(a %d-item head_count_kv) allocated %d bytes for a %d-byte file", n, got, len(data))
	}
	if err == nil || !strings.Contains(err.Error(), "per-layer array") {
		t.Errorf("Read(a %d-item head_count_kv) = %v, want a per-layer bound", n, err)
	}
	r := bytes.NewReader(data)
	if _, err := ReadAt([]Part{{r, int64(len(data))}}, Options{}); err == nil || !strings.Contains(err.Error(), "per-layer array") {
		t.Errorf("ReadAt(a %d-item head_count_kv) = %v, want a per-layer bound", n, err)
	}
}

// withOffset returns data with the data offset of the tensor named name,
// of ndims dimensions, set to off.
func withOffset(t testing.TB, data []byte, name string, ndims int, off uint64) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(name))
	if i < 0 {
		t.Fatalf("no tensor %s", name)
	}
	at := i + len(name) + 4 + 8*ndims + 4
	out := bytes.Clone(data)
	binary.LittleEndian.PutUint64(out[at:], off)
	return out
}

func twoTensors(names ...string) []byte {
	f := &gguftest.File{KVs: []arch.KV{{Key: "general.architecture", Value: "llama"}, {Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(64)}, {Key: "llama.attention.head_count", Value: uint32(4)}}}
	for _, n := range names {
		f.Tensors = append(f.Tensors, gguftest.Tensor{Name: n, Dims: []uint64{64, 10}})
	}
	h, size := f.Header()
	return append(h, make([]byte, size-int64(len(h)))...)
}

// TestHostileLayouts holds finding 8: files llama.cpp refuses are refused,
// not read as exact weights.
func TestHostileLayouts(t *testing.T) {
	whole := tiny()
	h, _ := (&gguftest.File{KVs: []arch.KV{{Key: "general.architecture", Value: "llama"}, {Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(64)}, {Key: "llama.attention.head_count", Value: uint32(4)}},
		Tensors: []gguftest.Tensor{{Name: "token_embd.weight", Dims: []uint64{64, 10}}}}).Header()
	dupKey := (&gguftest.File{KVs: []arch.KV{{Key: "general.architecture", Value: "llama"}, {Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.block_count", Value: uint32(2)}}}).Reader
	r, size := dupKey()
	dupKeyData := make([]byte, size)
	r.ReadAt(dupKeyData, 0)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"no tensor data", h, "the file ends at"},
		{"offset 2^40", withOffset(t, whole, "token_embd.weight", 2, 1<<40), "want 0"},
		{"offset 2^64-1", withOffset(t, whole, "token_embd.weight", 2, 1<<64-1), "want 0"},
		{"overlapping tensors", withOffset(t, twoTensors("a.weight", "b.weight"), "b.weight", 2, 0), `"b.weight" has data offset 0`},
		{"a tensor named twice", twoTensors("token_embd.weight", "token_embd.weight"), "appears twice"},
		{"a metadata key twice", dupKeyData, `"llama.block_count" appears twice`},
	} {
		path := writeTemp(t, strings.ReplaceAll(tc.name, " ", "_")+".gguf", tc.data)
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s) = %v, want an error containing %q", tc.name, err, tc.want)
		}
		if _, err := ReadAt([]Part{{bytes.NewReader(tc.data), int64(len(tc.data))}}, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadAt(%s) = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadAt([]Part{{bytes.NewReader(whole), int64(len(whole))}}, Options{}); err != nil {
		t.Errorf("ReadAt(tiny) = %v", err)
	}
}
