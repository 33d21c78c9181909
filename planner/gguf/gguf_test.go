package gguf

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/gguf/gguftest"
	"github.com/vramplan/vramplan/planner/hf"
)

func readConfig(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../hf/testdata/configs", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// families are the fixtures: one per architecture family, each written as
// llama-quantize would write it for the file type given.
var families = []struct{ config, fileType string }{
	{"meta-llama__Llama-3.1-8B-Instruct", "q4_k_m"},
	{"mistralai__Mixtral-8x7B-Instruct-v0.1", "q4_k_m"},
	{"Qwen__Qwen3-4B-Instruct-2507", "q8_0"},
	{"Qwen__Qwen3-30B-A3B", "q8_0"},
	{"Qwen__Qwen2.5-7B-Instruct", "q6_k"},
	{"google__gemma-2-9b-it", "q8_0"},
	{"google__gemma-3-4b-it", "q4_k_m"},
	{"microsoft__Phi-3.5-mini-instruct", "q4_k_m"},
	{"deepseek-ai__DeepSeek-V2-Lite-Chat", "q4_k_m"},
	{"openai__gpt-oss-20b", "mxfp4_moe"},
	{"Qwen__Qwen3-Next-80B-A3B-Instruct", "q4_k_m"},
}

func writeFixture(t testing.TB, config, fileType string, tokenizer bool) (string, *gguftest.File) {
	t.Helper()
	f, err := gguftest.FromConfig(readConfig(t, config), fileType, tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), config+"-"+fileType+".gguf")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	return path, f
}

// TestFamilies checks each family: the weights are the sum of the tensor
// bytes and equal what the config's template computes for the same file
// type, the per-layer KV geometry equals the config's, and ReadAt agrees
// with Read.
func TestFamilies(t *testing.T) {
	for i, fam := range families {
		t.Run(fam.config, func(t *testing.T) {
			path, f := writeFixture(t, fam.config, fam.fileType, i == 0)
			m, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			gf, _ := parse(path)
			if want := planner.Bytes(gf.TensorInfos.Bytes()); m.Weights.Bytes != want || m.Weights.Source != planner.SourceExact {
				t.Errorf("Read(%s).Weights = %d (%s), want the %d tensor bytes, exact", fam.config, m.Weights.Bytes, m.Weights.Source, want)
			}
			formula, err := hf.ParseConfig(readConfig(t, fam.config), hf.Options{WeightsDtype: fam.fileType})
			if err != nil {
				t.Fatal(err)
			}
			if m.Weights.Bytes != formula.Weights.Bytes || m.Params() != formula.Params() {
				t.Errorf("Read(%s) = %d bytes, %d params; config.json at %s gives %d bytes, %d params",
					fam.config, m.Weights.Bytes, m.Params(), fam.fileType, formula.Weights.Bytes, formula.Params())
			}
			if !reflect.DeepEqual(m.Layers, formula.Layers) {
				t.Errorf("Read(%s).Layers = %+v, want the config's %+v", fam.config, m.Layers, formula.Layers)
			}
			r, size := f.Reader()
			at, err := ReadAt([]Part{{r, size}}, Options{BlockSize: 64 << 10})
			m.Source = ""
			if err != nil || !reflect.DeepEqual(at, m) {
				t.Errorf("ReadAt(%s) = %+v, %v, want %+v", fam.config, at, err, m)
			}
		})
	}
}

// TestDecodeMatchesParser checks that the ReaderAt decoder yields the very
// GGUFFile gguf-parser-go's ParseGGUFFile yields for the same file.
func TestDecodeMatchesParser(t *testing.T) {
	for i, fam := range families[:3] {
		path, f := writeFixture(t, fam.config, fam.fileType, i == 0)
		want, err := parse(path)
		if err != nil {
			t.Fatal(err)
		}
		r, size := f.Reader()
		for _, block := range []int{1, 4096, 1 << 22} {
			got, err := decode([]Part{{r, size}}, block)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("decode(%s, block %d) differs from ParseGGUFFile (err %v)", fam.config, block, err)
			}
		}
	}
}

// TestMmproj reads gemma-3's vision tower as an mmproj F16 file.
func TestMmproj(t *testing.T) {
	f, err := gguftest.Mmproj(readConfig(t, "google__gemma-3-4b-it"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mmproj-model-f16.gguf")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	v, err := ReadVision(path)
	if err != nil {
		t.Fatal(err)
	}
	// 417M parameters: f16 matrices and tables, f32 norms and biases (the
	// published mmproj-model-f16.gguf of gemma-3-4b-it is 851 MB).
	want := planner.Vision{Bytes: 851226048, Source: planner.SourceExact, ImageSize: 896, ImageTokens: 256}
	if *v != want {
		t.Errorf("ReadVision(gemma-3-4b mmproj) = %+v (%d bytes), want %+v", *v, int64(v.Bytes), want)
	}
	if _, err := Read(path); err == nil {
		t.Errorf("Read(mmproj) = nil error, want one that says it is a vision projector")
	}
}
