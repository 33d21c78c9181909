// Package hf reads the shape of a Hugging Face model: its config.json, through
// a template per architecture, and its safetensors headers, for the exact
// bytes of every tensor without reading any weight data.
//
// A config.json alone gives a formula model: per-layer KV geometry and a
// parameter count that are exact for the architectures it knows, and weight
// bytes computed from torch_dtype and quantization_config. Safetensors
// headers replace the bytes with the sum over the tensors the files hold.
// The package imports the standard library only and builds for js/wasm.
package hf

import (
	"fmt"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// Options are the choices a caller makes when reading a Hugging Face model.
// The zero value reads the checkpoint as it is.
type Options struct {
	// WeightsDtype overrides the storage format of the weights: a format
	// (bf16, fp8, int4, nvfp4, mxfp4) for the GEMM weights, or a llama.cpp
	// file type (q8_0, q6_k, q4_k_m) applied with llama.cpp's per-tensor rules.
	WeightsDtype string `json:"weights_dtype,omitempty"`
}

// maxWeights is the planner's bound on weight bytes.
const maxWeights = 1 << 50

// ParseConfig reads a config.json into a model whose weight bytes are
// computed from torch_dtype, quantization_config or opts.WeightsDtype.
func ParseConfig(data []byte, opts Options) (planner.Model, error) {
	s, err := arch.Parse(data)
	if err != nil {
		return planner.Model{}, err
	}
	sc := s.Scheme
	if opts.WeightsDtype != "" {
		if sc, err = arch.Override(opts.WeightsDtype, s.Base, s.Tensors); err != nil {
			return planner.Model{}, err
		}
	}
	m := s.Model(sc)
	m.ID, m.Source = s.Arch, "config.json"
	if m.Weights.Bytes > maxWeights {
		return m, fmt.Errorf("config.json: weights of %d bytes are more than 1 PiB", int64(m.Weights.Bytes))
	}
	return m, nil
}

// Architectures lists the config.json model_type values with a template.
// Others are read as a generic decoder when the config has its fields.
func Architectures() []string { return arch.Architectures() }
