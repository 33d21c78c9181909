// Package deptest checks what a package depends on when it is built for
// the browser (GOOS=js GOARCH=wasm), for the tests that keep the planner
// and its browser-side readers pure (tailscale's tstest/deptest is the
// model). It runs the go command, so it is for native tests only.
package deptest

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Deps says what the package in the test's directory may depend on.
type Deps struct {
	// Allowed are the non-standard packages it may depend on, itself
	// included; every other dependency must be in the standard library.
	Allowed []string
	// Forbidden are standard packages it must not import directly.
	Forbidden []string
}

// Check fails t for every dependency of the package in the current
// directory, built for GOOS=js GOARCH=wasm, that d does not allow, and
// every forbidden package it imports. It skips under GOOS=js, where there
// is no go command.
func Check(t testing.TB, d Deps) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("needs the go command; runs natively")
	}
	for _, line := range goList(t, "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".") {
		path, std, _ := strings.Cut(line, " ")
		if std != "true" && !slices.Contains(d.Allowed, path) {
			t.Errorf("the package depends on the non-standard package %s", path)
		}
	}
	for _, imp := range goList(t, "-f", "{{join .Imports \"\\n\"}}", ".") {
		if slices.Contains(d.Forbidden, imp) {
			t.Errorf("the package imports %s", imp)
		}
	}
}

func goList(t testing.TB, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
