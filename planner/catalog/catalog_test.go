package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog/internal/build"
)

// TestFresh regenerates the catalog and compares it with models/*.json and
// models.go.
func TestFresh(t *testing.T) {
	want, err := build.Generate("spec.json", filepath.Join("..", "hf", "testdata", "configs"))
	if err != nil {
		t.Fatal(err)
	}
	have, _ := filepath.Glob("models/*.json")
	if len(have) != len(want) {
		t.Errorf("models/ holds %d files, the generator makes %d; run go generate ./planner/catalog", len(have), len(want))
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join("models", name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("models/%s is stale (%v); run go generate ./planner/catalog", name, err)
		}
	}
	src, err := build.GoSource(want)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("models.go"); err != nil || !bytes.Equal(got, src) {
		t.Errorf("models.go is stale (%v); run go generate ./planner/catalog", err)
	}
}

// TestGoValues checks that the compiled-in models are the JSON files'
// models, field for field, as encoding/json reads them.
func TestGoValues(t *testing.T) {
	files, _ := filepath.Glob("models/*.json")
	all, _ := All()
	if len(all) != len(files) {
		t.Fatalf("All() = %d models, models/ holds %d", len(all), len(files))
	}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want planner.Model
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got := all[i]
		got.Variants = nil // added by All from the other files (TestVariants)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("All()[%d] = %+v, want %s as decoded: %+v", i, got, f, want)
		}
	}
}

// TestAll checks the catalog's size, the seed's configurations, and that
// every model is valid planner input.
func TestAll(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 30 {
		t.Errorf("All() = %d models, want at least 30", len(all))
	}
	cal, _ := calibrations.Lookup("rtx5090-wsl2-cuda13.3")
	for _, m := range all {
		in := planner.Input{Model: m, Calibration: cal, Limits: planner.Limits{MaxBatch: 1, MaxSeqLen: 4096}}
		var ie *planner.InputError
		if _, err := planner.Report(in); errors.As(err, &ie) {
			t.Errorf("Report(%s): %v", m.ID, err)
		}
	}
	for _, id := range []string{"qwen3-4b-instruct-2507-q8_0", "qwen3-coder-30b-a3b-instruct-nvfp4", "gemma-3-4b-it-q4_k_m",
		"qwen3-8b-q8_0", "qwen3-14b-q6_k", "gpt-oss-20b-mxfp4", "llama-3.1-8b-instruct-bf16"} {
		if _, err := Lookup(id); err != nil {
			t.Errorf("Lookup(%q): %v", id, err)
		}
	}
}

// TestSeedWeights compares generated weights with the seed's measurements.
func TestSeedWeights(t *testing.T) {
	tests := []struct {
		id        string
		want      planner.Bytes
		tolerance float64
	}{
		// Seed A1.4 WEIGHTS: 4076.1 MiB for Qwen3-4B-Instruct-2507 Q8_0 (the
		// llama.cpp file's tensors: every matrix q8_0, norms f32).
		{"qwen3-4b-instruct-2507-q8_0", 4274100634, 0.001},
		// Seed A1.4 WEIGHTS: 2367.6 MiB for gemma-3-4b-it Q4_K_M.
		{"gemma-3-4b-it-q4_k_m", 2482609766, 0.001},
	}
	for _, tt := range tests {
		m, err := Lookup(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(m.Weights.Bytes-tt.want) / float64(tt.want); d > tt.tolerance || d < -tt.tolerance {
			t.Errorf("Lookup(%s).Weights.Bytes = %d, want %d ± %.1f%%", tt.id, m.Weights.Bytes, tt.want, 100*tt.tolerance)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct{ q, id, err string }{
		{"qwen3-8b-q8_0", "qwen3-8b-q8_0", ""},
		{"QWEN3-8B-Q8_0", "qwen3-8b-q8_0", ""},
		{"gpt-oss-2", "gpt-oss-20b-mxfp4", ""},
		{"qwen3-8b", "", "ambiguous"},
		{"llama-9", "", "closest"},
		{"", "", "one of"},
	}
	for _, tt := range tests {
		m, err := Lookup(tt.q)
		switch {
		case tt.err == "" && (err != nil || m.ID != tt.id):
			t.Errorf("Lookup(%q) = %q, %v, want %q", tt.q, m.ID, err, tt.id)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Lookup(%q) = %v, want an error containing %q", tt.q, err, tt.err)
		}
	}
}

// TestPublishedSizes compares generated GGUF weights with the file sizes
// their publishers list: bartowski's llama.cpp b5200 quantizations of
// Qwen3 (huggingface.co/bartowski/Qwen_Qwen3-8B-GGUF and
// Qwen_Qwen3-4B-GGUF, README "File Size", in GB of 10^9 bytes to two
// decimals; Qwen3-4B is Qwen3-4B-Instruct-2507's shape). A file also holds
// its tokenizer and metadata, a few MB, so the tolerance is 0.01 GB of
// rounding and 0.01 GB of metadata.
func TestPublishedSizes(t *testing.T) {
	tests := []struct {
		id string
		gb float64
	}{
		{"qwen3-8b-q8_0", 8.71},
		{"qwen3-8b-q6_k", 6.73},
		{"qwen3-4b-instruct-2507-q4_k_m", 2.50},
		{"qwen3-4b-instruct-2507-q8_0", 4.28},
	}
	for _, tt := range tests {
		m, err := Lookup(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(m.Weights.Bytes)/1e9 - tt.gb; d > 0.01 || d < -0.02 {
			t.Errorf("Lookup(%s).Weights.Bytes = %d, want a file of %.2f GB less 0 to 0.02 GB of metadata", tt.id, m.Weights.Bytes, tt.gb)
		}
	}
}
