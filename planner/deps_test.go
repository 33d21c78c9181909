package planner

import (
	"testing"

	"github.com/vramplan/vramplan/planner/internal/deptest"
)

// TestPureImports proves the planner is pure: under GOOS=js GOARCH=wasm
// every package it depends on is in the standard library, and it imports
// none of the packages that reach the outside world, the clock or memory
// directly.
func TestPureImports(t *testing.T) {
	deptest.Check(t, deptest.Deps{Allowed: []string{"github.com/vramplan/vramplan/planner"},
		Forbidden: []string{"os", "net", "syscall/js", "unsafe", "time", "math/rand", "math/rand/v2", "crypto/rand", "io/fs", "embed"}})
}
