package modelfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/gguf/gguftest"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	cfg, err := os.ReadFile("../hf/testdata/configs/google__gemma-3-4b-it.json")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := gguftest.FromConfig(cfg, "q4_k_m", false)
	ggufPath := filepath.Join(dir, "gemma-3-4b-it-Q4_K_M.gguf")
	f.Write(ggufPath)
	mm, _ := gguftest.Mmproj(cfg)
	mmproj := filepath.Join(dir, "mmproj-model-f16.gguf")
	mm.Write(mmproj)
	modelDir := filepath.Join(dir, "gemma-3-4b-it")
	os.Mkdir(modelDir, 0o755)
	os.WriteFile(filepath.Join(modelDir, "config.json"), cfg, 0o644)
	named := filepath.Join(dir, "gemma.json")
	os.WriteFile(named, cfg, 0o644)
	entry, _ := catalog.Lookup("gemma-3-4b-it-q4_k_m")
	shape := filepath.Join(dir, "shape.json")
	data, _ := json.Marshal(entry)
	os.WriteFile(shape, data, 0o644)

	tests := []struct {
		name  string
		opts  Options
		bytes planner.Bytes
	}{
		{ggufPath, Options{}, entry.Weights.Bytes},
		{ggufPath, Options{Mmproj: mmproj}, entry.Weights.Bytes},
		{modelDir, Options{WeightsDtype: "q4_k_m"}, entry.Weights.Bytes},
		{filepath.Join(modelDir, "config.json"), Options{WeightsDtype: "q4_k_m"}, entry.Weights.Bytes},
		{named, Options{WeightsDtype: "q4_k_m"}, entry.Weights.Bytes},
		{shape, Options{}, entry.Weights.Bytes},
		{"gemma-3-4b-it-q4", Options{}, entry.Weights.Bytes},
	}
	for _, tt := range tests {
		m, err := Open(tt.name, tt.opts)
		if err != nil || m.Weights.Bytes != tt.bytes || len(m.Layers) != len(entry.Layers) {
			t.Errorf("Open(%s, %+v) = %d bytes, %d layer groups, %v; want %d bytes, %d groups",
				filepath.Base(tt.name), tt.opts, m.Weights.Bytes, len(m.Layers), err, tt.bytes, len(entry.Layers))
		}
		if tt.opts.Mmproj != "" && (m.Vision == nil || m.Vision.Bytes != entry.Vision.Bytes) {
			t.Errorf("Open(%s, mmproj).Vision = %+v, want %d bytes", filepath.Base(tt.name), m.Vision, entry.Vision.Bytes)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notShape := filepath.Join(dir, "bad.json")
	os.WriteFile(notShape, []byte(`{"layers": 3}`), 0o644)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no/such/file.gguf", Options{}, "no such file"},
		{"missing.gguf", Options{}, "no such file"},
		{"qwen3-8b", Options{}, "ambiguous"},
		{"qwen3-8b-q8_0", Options{WeightsDtype: "fp8"}, "fixed weights"},
		{notShape, Options{}, "not a planner model shape"},
		{"qwen3-8b-q8_0", Options{Mmproj: "nope.gguf"}, "nope.gguf"},
	}
	for _, tt := range tests {
		_, err := Open(tt.name, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%q, %+v) = %v, want an error containing %q", tt.name, tt.opts, err, tt.want)
		}
	}
}

// TestNonRegularFiles holds finding 6 for --model and --mmproj: a device or
// a FIFO is refused unread, whatever its name says it is. The guard only
// keeps a regression from hanging the run.
func TestNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "shape.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{{"/dev/zero", Options{}}, {fifo, Options{}}, {"qwen3-8b-q8_0", Options{Mmproj: "/dev/zero"}}} {
		done := make(chan error, 1)
		go func() { _, err := Open(tc.name, tc.opts); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Open(%s, %+v) = %v, want it refused as not a regular file", tc.name, tc.opts, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Open(%s) did not return", tc.name)
		}
	}
}
