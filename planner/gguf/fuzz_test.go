package gguf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// FuzzReadAt feeds arbitrary files to ReadAt and ReadVisionAt: each must
// return a result or an error, never panic, and read a model with layers.
// The seed corpus is testdata/fuzz/FuzzReadAt.
func FuzzReadAt(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p := Part{bytes.NewReader(data), int64(len(data))}
		m, err := ReadAt([]Part{p}, Options{BlockSize: 64})
		if err == nil {
			if ierr := plannerError(m); ierr != nil {
				t.Errorf("ReadAt(%q) = a model the planner refuses: %v", data, ierr)
			}
		}
		sameAcrossBlocks(t, p)
		if v, err := ReadVisionAt(p, Options{}); err == nil && (v.Bytes < 0 || v.ImageTokens > 1<<20) {
			t.Errorf("ReadVisionAt(%q) = %+v", data, v)
		}
	})
}

// sameAcrossBlocks checks that the header decodes the same whatever the
// read-ahead block: blocks of 5 bytes split every field, 64 split most
// strings, and a large one reads the file at once.
func sameAcrossBlocks(t *testing.T, p Part) {
	want, werr := decode([]Part{p}, 1<<20)
	for _, block := range []int{5, 64} {
		got, err := decode([]Part{p}, block)
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decode with %d-byte blocks = %v, with 1 MiB blocks = %v", block, err, werr)
		}
	}
}

// plannerError returns the planner's InputError for m, if any.
func plannerError(m planner.Model) error {
	cal, _ := calibrations.Lookup("rtx5090-wsl2-cuda13.3")
	_, err := planner.Report(planner.Input{Model: m, Calibration: cal, Limits: planner.Limits{MaxBatch: 1, MaxSeqLen: 16}})
	var ie *planner.InputError
	if errors.As(err, &ie) {
		return err
	}
	return nil
}

// FuzzRead is FuzzReadAt through the CLI's path (Read and ReadVision on a
// file), for findings 4, 5 and 8 of issue 13: a header's counts are
// checked before anything is sized from them and per-layer arrays are
// bounded, so reading costs memory in proportion to the file, not to
// what it claims; and weights read as exact never exceed the bytes the
// file holds (a 1,695-byte file with no tensor data reported 181,504
// exact weight bytes; offsets of 2^40 were accepted). The seeds are a
// whole small file, its header alone, and the red-team run's shapes.
func FuzzRead(f *testing.F) {
	whole := tiny()
	f.Add(whole)
	f.Add(whole[:len(whole)-len(whole)/2])
	f.Add(withOffset(f, whole, "token_embd.weight", 2, 1<<40))
	f.Add(twoTensors("token_embd.weight", "token_embd.weight"))
	f.Add(header(1<<20, 0, make([]byte, 159)))
	f.Add(header(0, 2, str("general.architecture"), u32(8), str("llama"), str("llama.feed_forward_length"), u32(9), u32(4), u64(1<<24)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.gguf")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var m planner.Model
		var err error
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err = Read(path)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20+64*uint64(len(data)) {
			t.Fatalf("Read of a %d-byte file allocated %d bytes", len(data), n)
		}
		if err == nil && m.Weights.Source == planner.SourceExact && int64(m.Weights.Bytes) > int64(len(data)) {
			t.Fatalf("Read of a %d-byte file = %d exact weight bytes", len(data), m.Weights.Bytes)
		}
		if v, err := ReadVision(path); err == nil && (int64(v.Bytes) > int64(len(data)) || v.Bytes < 0) {
			t.Fatalf("ReadVision of a %d-byte file = %d bytes", len(data), v.Bytes)
		}
	})
}
