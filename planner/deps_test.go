package planner

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner/internal/deptest"
)

// TestPureImports proves the planner is pure: under GOOS=js GOARCH=wasm
// every package it depends on is in the standard library or is one of
// internal/jsonlite and internal/printf, which stand in for encoding/json
// and fmt there, and it imports none of the
// packages that reach the outside world, the clock or memory directly.
func TestPureImports(t *testing.T) {
	deptest.Check(t, deptest.Deps{Allowed: []string{"github.com/vramplan/vramplan/planner", "github.com/vramplan/vramplan/internal/jsonlite",
		"github.com/vramplan/vramplan/internal/printf"},
		Forbidden: []string{"os", "net", "syscall/js", "unsafe", "time", "math/rand", "math/rand/v2", "crypto/rand", "io/fs", "embed"}})
}

// TestWasmModuleImports keeps out of the planner's WebAssembly module the
// standard packages that would put it over its 1 MB gzip budget
// (wasm/size.test.mjs measures it; docs/benchmarks.md, "Planner module
// size", says what each costs).
func TestWasmModuleImports(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command; runs natively")
	}
	instead := map[string]string{
		"encoding/json": "internal/jsonlite (encoding/json costs about 130 KB gzip)",
		"fmt":           "internal/printf (fmt costs about 90 KB gzip, 63 KB of it for being imported at all)",
		"os":            "nothing: the module does no I/O (os comes with fmt and log)",
		"net/url":       "web/calc's own query escaping (40 KB gzip)",
	}
	cmd := exec.Command("go", "list", "-deps", "github.com/vramplan/vramplan/wasm/planner")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, path := range strings.Fields(string(out)) {
		if use, ok := instead[path]; ok {
			t.Errorf("the planner module links %s: use %s", path, use)
		}
	}
}
