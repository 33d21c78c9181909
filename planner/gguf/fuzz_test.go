package gguf

import (
	"bytes"
	"errors"
	"reflect"
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
