package vmm_test

import (
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/gputest"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/vmm"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

// open opens device 0 or skips the test when there is no CUDA driver.
func open(t testing.TB, opts vmm.Options) *vmm.Backend {
	t.Helper()
	return gputest.Open(t, vmm.ErrNoDriver, func() (*vmm.Backend, error) { return vmm.Open(opts) }, (*vmm.Backend).Close)
}

func TestConformance(t *testing.T) {
	open(t, vmm.Options{})
	gpuagenttest.TestBackend(t, func(g *backend.PhaseGuard) backend.Backend { return open(t, vmm.Options{Guard: g}) })
}

func TestConformanceNoHysteresis(t *testing.T) {
	open(t, vmm.Options{})
	gpuagenttest.TestBackend(t, func(g *backend.PhaseGuard) backend.Backend {
		return open(t, vmm.Options{Guard: g, Chunk: 4 * backend.MiB, Hysteresis: -1})
	})
}

func TestHysteresis(t *testing.T) {
	b := open(t, vmm.Options{Chunk: 4 * backend.MiB, Hysteresis: 8 * backend.MiB})
	r, err := b.AcquireGrowable(64*backend.MiB, 32*backend.MiB, backend.TagKVPool)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(r)
	steps := []struct {
		op             string
		to, wantMapped backend.Bytes
	}{
		{"decommit", 28, 32}, {"decommit", 24, 32}, {"decommit", 16, 24}, // keeps 8 MiB
		{"commit", 20, 24}, {"commit", 28, 28}, {"decommit", 0, 8}, {"trim", 0, 0},
	}
	for _, s := range steps {
		to := s.to * backend.MiB
		var err error
		switch s.op {
		case "commit":
			err = b.Commit(r, to)
		case "decommit":
			err = b.Decommit(r, to)
		case "trim":
			err = b.Trim(r)
		}
		if err != nil || r.Committed() != to || b.Mapped() != s.wantMapped*backend.MiB {
			t.Errorf("%s to %v: err=%v committed=%v mapped=%v, want mapped %v MiB", s.op, to, err, r.Committed(), b.Mapped(), s.wantMapped)
		}
	}
}

// TestSharerConformance exports a KV region's chunks and maps them twice
// in this process through the Importer an engine process would use.
func TestSharerConformance(t *testing.T) {
	b := open(t, vmm.Options{ExportPOSIXFD: true, Chunk: 4 * backend.MiB, Hysteresis: -1})
	gpuagenttest.TestSharer(t, b, func() gpuagenttest.Importer {
		im, err := vmm.NewImporter(0)
		if err != nil {
			t.Fatal(err)
		}
		return im
	})
}
