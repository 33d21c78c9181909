package gguf

// These tests hold issue 31's point 17 for GGUF: a model of no tensors is
// refused, and a header's metadata and a split model's tensor infos are
// bounded in count and bytes, so neither a 63 MB header of 3.1M entries
// (7.5 s, 635 MB) nor 32 large shard headers read one after another hold
// more than the bounds.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner/gguf/gguftest"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// readBoth reads f by path and through ReadAt, returning both errors.
func readBoth(t *testing.T, f *gguftest.File, vision bool) [2]error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	r, size := f.Reader()
	if vision {
		_, e1 := ReadVision(path)
		_, e2 := ReadVisionAt(Part{r, size}, Options{})
		return [2]error{e1, e2}
	}
	_, e1 := Read(path)
	_, e2 := ReadAt([]Part{{r, size}}, Options{})
	return [2]error{e1, e2}
}

// TestNoTensors: a GGUF with a model's metadata and no tensors planned as
// "model weights 0 exact" and fit; it is refused, model and mmproj alike.
func TestNoTensors(t *testing.T) {
	m, err := gguftest.FromConfig(readConfig(t, "Qwen__Qwen3-30B-A3B"), "q4_k_m", false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := gguftest.Mmproj(readConfig(t, "google__gemma-3-4b-it"))
	if err != nil {
		t.Fatal(err)
	}
	if errs := readBoth(t, m, false); errs[0] != nil || errs[1] != nil {
		t.Fatalf("the model with its tensors: %v", errs)
	}
	m.Tensors, v.Tensors = nil, nil
	for what, errs := range map[string][2]error{"model": readBoth(t, m, false), "mmproj": readBoth(t, v, true)} {
		for _, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "no tensors") {
				t.Errorf("the %s without tensors: %v, want it refused", what, err)
			}
		}
	}
}

// TestMetadataBounded: a header of more metadata entries than a model has
// is refused from its counts, before an entry is read; one of fewer
// entries whose strings run past the metadata's byte budget is refused at
// the entry that passes it; and either costs a bounded allocation.
func TestMetadataBounded(t *testing.T) {
	base, err := gguftest.FromConfig(readConfig(t, "Qwen__Qwen3-30B-A3B"), "q4_k_m", false)
	if err != nil {
		t.Fatal(err)
	}
	many := *base
	many.KVs = append([]arch.KV(nil), base.KVs...)
	for i := len(many.KVs); i < 3_100_000; i++ {
		many.KVs = append(many.KVs, arch.KV{Key: fmt.Sprintf("x.%07d", i), Value: true})
	}
	long := *base
	long.KVs = append([]arch.KV(nil), base.KVs...)
	for i := range 20 {
		long.KVs = append(long.KVs, arch.KV{Key: fmt.Sprintf("x.%d", i), Value: strings.Repeat("a", 1<<20)})
	}
	for _, tc := range []struct {
		what  string
		f     *gguftest.File
		want  string
		alloc uint64
	}{
		{"3.1M entries", &many, "3100000 metadata entries, more than 4096", 4 << 20},
		{"20 strings of 1 MiB", &long, "metadata of more than 16777216 bytes", 64 << 20},
	} {
		r, size := tc.f.Reader()
		var err error
		if n := allocated(func() { _, err = ReadAt([]Part{{r, size}}, Options{}) }); n > tc.alloc {
			t.Errorf("%s: ReadAt allocated %d bytes, want at most %d", tc.what, n, tc.alloc)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ReadAt = %v, want an error saying %q", tc.what, err, tc.want)
		}
	}
}

// TestSplitTensorsBounded: the tensor infos of a split model are bounded
// over all its files (each file's bound alone let 32 splits hold 32 times
// it), and the split past the bound is named without the rest being read.
func TestSplitTensorsBounded(t *testing.T) {
	base, err := gguftest.FromConfig(readConfig(t, "Qwen__Qwen3-30B-A3B"), "q4_k_m", false)
	if err != nil {
		t.Fatal(err)
	}
	const splits, per = 32, 4096 // 131,072 tensors: twice maxTensors
	f := &gguftest.File{KVs: base.KVs}
	for i := range splits * per {
		f.Tensors = append(f.Tensors, gguftest.Tensor{Name: fmt.Sprintf("t.%d", i), Dims: []uint64{32}, Type: parser.GGMLTypeF32})
	}
	var parts []Part
	for _, s := range f.Split(splits) {
		r, size := s.Reader()
		parts = append(parts, Part{r, size})
	}
	_, err = ReadAt(parts, Options{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("split %d of %d", maxTensors/per+1, splits)) ||
		!strings.Contains(err.Error(), "more than 65536") {
		t.Errorf("ReadAt(%d splits of %d tensors) = %v, want split %d refused past %d tensors", splits, per, err, maxTensors/per+1, maxTensors)
	}
}
