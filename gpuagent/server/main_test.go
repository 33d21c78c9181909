package server_test

import (
	"os"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/leak/leaktest"
)

// TestMain fails the package's tests, under the invariants build tag, if
// any of them dropped an owned object without releasing it. Started with
// GPUAGENT_POOL_CHILD set, the test binary is instead the second process
// of TestPoolDescriptorsDoNotLeak.
func TestMain(m *testing.M) {
	if addr := os.Getenv("GPUAGENT_POOL_CHILD"); addr != "" {
		os.Exit(poolChild(addr))
	}
	os.Exit(leaktest.Main(m))
}
