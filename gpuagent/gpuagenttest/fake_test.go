package gpuagenttest_test

import (
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

func small(g *backend.PhaseGuard) *gpuagenttest.Fake {
	return gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB, Granularity: 64 * backend.KiB, Guard: g})
}

func TestFakeConformance(t *testing.T) {
	gpuagenttest.TestBackend(t, func(g *backend.PhaseGuard) backend.Backend { return small(g) })
}
