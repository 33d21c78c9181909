package planner

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestPureImports proves the planner is pure: under GOOS=js GOARCH=wasm
// every package it depends on is in the standard library, and it imports
// none of the packages that reach the outside world, the clock or memory
// directly.
func TestPureImports(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command; runs natively")
	}
	deps := goList(t, "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".")
	for _, line := range deps {
		path, std, _ := strings.Cut(line, " ")
		if std != "true" && path != "github.com/vramplan/vramplan/planner" {
			t.Errorf("planner depends on non-standard package %s", path)
		}
	}
	forbidden := map[string]bool{"os": true, "net": true, "syscall/js": true, "unsafe": true, "time": true,
		"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "io/fs": true, "embed": true}
	for _, imp := range goList(t, "-f", "{{join .Imports \"\\n\"}}", ".") {
		if forbidden[imp] {
			t.Errorf("planner imports %s", imp)
		}
	}
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
