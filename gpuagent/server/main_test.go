package server_test

import (
	"os"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/leak/leaktest"
)

// TestMain fails the package's tests, under the invariants build tag, if
// any of them dropped an owned object without releasing it.
func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }
