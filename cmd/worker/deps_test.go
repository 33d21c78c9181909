package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLightImports proves the worker stays within the free plan's 3 MB
// gzip by what it leaves out: under GOOS=js GOARCH=wasm it depends on
// syumai/workers (so this is the real build), and on none of the heavy
// packages the native binary carries: the GGUF reader and gguf-parser-go
// (~0.6 MB gzip with its HTTP, TLS and SSH clients), the model-file
// readers, the embedded browser assets (Workers static assets serve them),
// the SQLite driver, Prometheus, and the planner module's own JSON codec
// (the stdjson tag: encoding/json is linked for echo anyway).
func TestLightImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "stdjson", "-deps", "-f", "{{.ImportPath}}", ".") // as make worker builds it
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	has := func(prefix string) bool {
		for _, d := range deps {
			if d == prefix || strings.HasPrefix(d, prefix+"/") {
				return true
			}
		}
		return false
	}
	if !has("github.com/syumai/workers") {
		t.Fatalf("the js build of cmd/worker does not import syumai/workers: %v", deps)
	}
	for _, heavy := range []string{
		"github.com/gpustack/gguf-parser-go",
		"github.com/vramplan/vramplan/planner/gguf",
		"github.com/vramplan/vramplan/planner/hf",
		"github.com/vramplan/vramplan/planner/modelfile",
		"github.com/vramplan/vramplan/web/static",
		"github.com/vramplan/vramplan/gpuagent",
		"modernc.org/sqlite",
		"github.com/prometheus/client_golang",
		"github.com/vramplan/vramplan/internal/jsonlite", // encoding/json is there for echo
	} {
		if has(heavy) {
			t.Errorf("cmd/worker depends on %s under GOOS=js GOARCH=wasm", heavy)
		}
	}
}
