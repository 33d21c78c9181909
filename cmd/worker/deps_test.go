package main

import (
	"os"
	"os/exec"
	"regexp"
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
// (the stdjson tag: encoding/json is linked for echo anyway). It lists the
// packages under the tags the Makefile builds the worker with (WORKERTAGS).
func TestLightImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", workerTags(t), "-deps", "-f", "{{.ImportPath}}", ".")
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

// TestSwappedFiles proves the worker's tags select the files that forward
// to the libraries echo links anyway: internal/printf as fmt (stdfmt), the
// planner's codec as encoding/json (stdjson). A tag misspelt in WORKERTAGS
// would otherwise build the larger worker without a word.
func TestSwappedFiles(t *testing.T) {
	for pkg, file := range map[string]string{
		"github.com/vramplan/vramplan/internal/printf": "printf_fmt.go",
		"github.com/vramplan/vramplan/planner":         "json_std.go",
	} {
		cmd := exec.Command("go", "list", "-tags", workerTags(t), "-f", "{{.GoFiles}}", pkg)
		cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		if !strings.Contains(string(out), file) {
			t.Errorf("the worker's build of %s leaves out %s: %s", pkg, file, out)
		}
	}
}

// workerTags returns the build tags `make worker` sets, as the Makefile's
// WORKERTAGS line gives them.
func workerTags(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^WORKERTAGS\s*:=\s*(\S+)\s*$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no `WORKERTAGS := tag,tag` line")
	}
	return string(m[1])
}
