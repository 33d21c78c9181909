package gguftest

import (
	"fmt"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner/internal/arch"
)

var ggmlTypes = map[string]parser.GGMLType{
	"f32": parser.GGMLTypeF32, "f16": parser.GGMLTypeF16, "bf16": parser.GGMLTypeBF16,
	"q8_0": parser.GGMLTypeQ8_0, "q4_0": parser.GGMLTypeQ4_0, "q4_1": parser.GGMLTypeQ4_1,
	"q5_0": parser.GGMLTypeQ5_0, "q5_1": parser.GGMLTypeQ5_1, "q2_k": parser.GGMLTypeQ2_K,
	"q3_k": parser.GGMLTypeQ3_K, "q4_k": parser.GGMLTypeQ4_K, "q5_k": parser.GGMLTypeQ5_K,
	"q6_k": parser.GGMLTypeQ6_K, "iq4_nl": parser.GGMLTypeIQ4_NL, "mxfp4": parser.GGMLTypeMXFP4,
}

// FromConfig builds the GGUF file llama.cpp would write for config.json
// cfg quantized as fileType ("q4_k_m", "q8_0", "f16"), with a tokenizer of
// the config's vocabulary when tokenizer is set.
func FromConfig(cfg []byte, fileType string, tokenizer bool) (*File, error) {
	s, err := arch.Parse(cfg)
	if err != nil {
		return nil, err
	}
	sc, err := arch.Override(fileType, s.Base, s.Tensors)
	if err != nil {
		return nil, err
	}
	f := &File{KVs: append(s.GGUFMetadata(), arch.KV{Key: "general.name", Value: "gguftest " + s.Arch})}
	if tokenizer {
		f.KVs = append(f.KVs, Tokenizer(vocabOf(s))...)
	}
	f.Tensors, err = tensors(s.Tensors, sc)
	return f, err
}

// Mmproj builds the mmproj F16 file llama.cpp would write for cfg's vision tower.
func Mmproj(cfg []byte) (*File, error) {
	s, err := arch.Parse(cfg)
	if err != nil || s.Vision == nil {
		return nil, fmt.Errorf("no vision tower: %v", err)
	}
	ts, err := tensors(s.Vision.Tensors, arch.MmprojScheme())
	return &File{KVs: s.VisionMetadata(), Tensors: ts}, err
}

func vocabOf(s *arch.Spec) int {
	for _, t := range s.Tensors {
		if t.Role == "token_embd" {
			return int(t.N)
		}
	}
	return 0
}

func tensors(ts []arch.Tensor, sc arch.Scheme) ([]Tensor, error) {
	out := make([]Tensor, 0, len(ts))
	for _, t := range ts {
		f := sc.Format(&t)
		typ, ok := ggmlTypes[f.Name]
		if !ok {
			return nil, fmt.Errorf("tensor %s: no ggml type for %s", t.Name(), f.Name)
		}
		dims := []uint64{uint64(t.K), uint64(t.N)}
		if t.Kind == arch.KindVector {
			dims = []uint64{uint64(t.N)}
		}
		if t.Experts > 0 {
			dims = append(dims, uint64(t.Experts))
		}
		out = append(out, Tensor{Name: t.Name(), Dims: dims, Type: typ})
	}
	return out, nil
}

// Tokenizer returns tokenizer metadata of n tokens and about 2n merges, the
// arrays that dominate a real GGUF header.
func Tokenizer(n int) []arch.KV {
	tokens, types := make([]string, n), make([]int32, n)
	merges := make([]string, 0, 2*n)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("tok%d", i)
		types[i] = 1
		merges = append(merges, fmt.Sprintf("t%d o%d", i, i), fmt.Sprintf("k%d n%d", i, i))
	}
	return []arch.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}, {Key: "tokenizer.ggml.tokens", Value: tokens},
		{Key: "tokenizer.ggml.token_type", Value: types}, {Key: "tokenizer.ggml.merges", Value: merges}}
}
