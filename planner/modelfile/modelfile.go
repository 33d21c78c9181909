// Package modelfile resolves what a user names as a model — a GGUF file, a
// Hugging Face config.json or model directory, a planner model-shape JSON
// file, or a catalog name — into the planner's model.
package modelfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vramplan/vramplan/internal/osfile"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/gguf"
	"github.com/vramplan/vramplan/planner/hf"
)

// Options are the choices that go with a model name. The zero value reads
// the model as it is, without a vision tower.
type Options struct {
	// WeightsDtype overrides the weight format of a config.json model (the
	// --weights-dtype flag): bf16, fp8, int4, nvfp4, mxfp4, or a llama.cpp
	// file type such as q4_k_m. GGUF files and catalog entries have fixed
	// weights and refuse it.
	WeightsDtype string `json:"weights_dtype,omitempty"`
	// Mmproj is the path of a vision projector GGUF (mmproj) whose tower
	// replaces the model's vision tower.
	Mmproj string `json:"mmproj,omitempty"`
}

// maxShapeFile bounds a planner model-shape or config.json file.
const maxShapeFile = 64 << 20

// Open returns the model nameOrPath names: a .gguf file (the first of a
// split model reads them all), a config.json file or a directory holding
// one (with its safetensors headers for exact bytes), a .json file in the
// planner's model format (an object with a "layers" key), a catalog ID
// or unambiguous prefix of one, or the Hugging Face repository of a catalog
// model ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-GGUF:Q6_K": catalog.LookupRepo)
// when no file has that name. An error of the Mmproj file is an
// *MmprojError.
func Open(nameOrPath string, opts Options) (planner.Model, error) {
	m, err := open(nameOrPath, opts)
	if err == nil && opts.Mmproj != "" {
		if m.Vision, err = gguf.ReadVision(opts.Mmproj); err == nil {
			m.Vision.File = opts.Mmproj
		} else {
			err = &MmprojError{Err: err}
		}
	}
	return m, err
}

// MmprojError is an error of the vision projector Options.Mmproj names,
// not of the model, so that a caller can say which of the two to fix.
type MmprojError struct{ Err error }

func (e *MmprojError) Error() string { return "the vision projector (mmproj): " + e.Err.Error() }

func (e *MmprojError) Unwrap() error { return e.Err }

func open(name string, opts Options) (planner.Model, error) {
	st, err := os.Stat(name)
	switch {
	case err == nil && st.IsDir():
		return hf.LoadDir(name, hf.Options{WeightsDtype: opts.WeightsDtype})
	case err == nil && strings.EqualFold(filepath.Ext(name), ".gguf"):
		return fixed(name, opts, gguf.Read)
	case err == nil:
		return openJSON(name, opts)
	case !errors.Is(err, fs.ErrNotExist):
		return planner.Model{}, err
	case catalog.IsRepo(name) && opts.WeightsDtype == "":
		return catalog.LookupRepo(catalog.Repo{Name: name})
	case looksLikePath(name):
		return planner.Model{}, fmt.Errorf("model %q: %w", name, err)
	}
	return fixed(name, opts, catalog.Lookup)
}

// fixed reads a model whose weights cannot be overridden.
func fixed(name string, opts Options, read func(string) (planner.Model, error)) (planner.Model, error) {
	if opts.WeightsDtype != "" {
		return planner.Model{}, fmt.Errorf("model %q has fixed weights; --weights-dtype applies to config.json models", name)
	}
	return read(name)
}

func looksLikePath(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return strings.ContainsAny(name, `/\`) || ext == ".gguf" || ext == ".json"
}

// openJSON reads a planner model-shape file or a config.json.
func openJSON(path string, opts Options) (planner.Model, error) {
	data, err := readBounded(path)
	if err != nil {
		return planner.Model{}, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return planner.Model{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := top["layers"]; ok {
		return fixed(path, opts, func(string) (planner.Model, error) { return decodeShape(path, data) })
	}
	if filepath.Base(path) == "config.json" {
		return hf.LoadDir(filepath.Dir(path), hf.Options{WeightsDtype: opts.WeightsDtype})
	}
	m, err := hf.ParseConfig(data, hf.Options{WeightsDtype: opts.WeightsDtype})
	if err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	m.ID, m.Source = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path
	return m, nil
}

func decodeShape(path string, data []byte) (planner.Model, error) {
	m, err := planner.ParseModel(data)
	if err != nil {
		return m, fmt.Errorf("%s: not a planner model shape: %w", path, err)
	}
	return m, nil
}

func readBounded(path string) ([]byte, error) { return osfile.ReadFile(path, maxShapeFile) }
