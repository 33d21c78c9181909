// Package gguf reads a model's shape from a GGUF file through
// github.com/gpustack/gguf-parser-go: per-layer KV geometry from the
// architecture's metadata (per-layer head_count_kv arrays, sliding-window
// patterns, SSM and linear-attention state, MLA ranks, experts) and exact
// weight bytes from the tensor infos. It reads split models and vision
// projector (mmproj) files.
//
// Read and ReadAt decode the header, from a path or from an io.ReaderAt in
// large blocks (a file a browser holds), into gguf-parser-go's GGUFFile with
// this package's decoder, which checks every count against the bytes left
// before allocating (gguf-parser-go's own ParseGGUFFile sizes its tensor
// table from the header's count first, file.go, so a 183-byte file could
// exhaust memory); both then share one conversion.
// The package is kept apart from the planner core, which imports the
// standard library only.
package gguf

import (
	"fmt"
	"path/filepath"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/internal/osfile"
	"github.com/vramplan/vramplan/planner"
)

// Options tune ReadAt. The zero value reads ahead in 1 MiB blocks.
type Options struct {
	// BlockSize is how many bytes each read of the underlying io.ReaderAt
	// fetches ahead. Larger blocks mean fewer, slower reads; in a browser,
	// where each read crosses into JavaScript, 4 MiB or more is best.
	BlockSize int `json:"block_size,omitempty"`
}

func (o Options) block() int {
	if o.BlockSize <= 0 {
		return 1 << 20
	}
	return min(o.BlockSize, 1<<28)
}

// Read reads the model in the GGUF file at path. For the first file of a
// split model (-00001-of-0000N.gguf) it reads every split. The tokenizer's
// arrays are skipped, not decoded: no model needs them. A path that is not
// a regular file (a device, a FIFO, a directory) is refused unread.
func Read(path string) (planner.Model, error) {
	gf, err := readPath(path)
	if err != nil {
		return planner.Model{}, fmt.Errorf("%s: %w", path, err)
	}
	m, err := toModel(gf)
	if err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	m.Source = path
	return m, nil
}

// ReadAt reads the model in parts, the files of a GGUF model in split
// order, each through an io.ReaderAt with its true size.
func ReadAt(parts []Part, opts Options) (planner.Model, error) {
	gf, err := decode(parts, opts.block())
	if err != nil {
		return planner.Model{}, err
	}
	return toModel(gf)
}

// ReadVision reads a vision projector (mmproj) GGUF file: the vision tower
// a multimodal model keeps resident, with its image geometry.
func ReadVision(path string) (*planner.Vision, error) {
	gf, err := readPath(path)
	if err == nil {
		var v *planner.Vision
		if v, err = toVision(gf); err == nil {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// ReadVisionAt reads a vision projector (mmproj) through an io.ReaderAt.
func ReadVisionAt(p Part, opts Options) (*planner.Vision, error) {
	gf, err := decode([]Part{p}, opts.block())
	if err != nil {
		return nil, err
	}
	return toVision(gf)
}

// maxSplits bounds the files of one split model (gguf-split names them
// with five digits).
const maxSplits = 1024

// readPath decodes the GGUF file at path, with every split when it names the
// first of a split model, as ParseGGUFFile would find them.
func readPath(path string) (*parser.GGUFFile, error) {
	paths := []string{path}
	if rs := parser.CompleteShardGGUFFilename(path); rs != nil && filepath.Clean(rs[0]) == filepath.Clean(path) {
		paths = rs
	}
	if len(paths) > maxSplits {
		return nil, fmt.Errorf("a model split in %d files, more than %d", len(paths), maxSplits)
	}
	parts := make([]Part, len(paths))
	for i, p := range paths {
		f, size, err := osfile.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		parts[i] = Part{f, size}
	}
	return decode(parts, 1<<20)
}
