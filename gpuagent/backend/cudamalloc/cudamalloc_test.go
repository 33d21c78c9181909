package cudamalloc_test

import (
	"os"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/gputest"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

// open opens device 0 or skips the test when there is no CUDA driver.
func open(t testing.TB, g *backend.PhaseGuard) *cudamalloc.Backend {
	t.Helper()
	return gputest.Open(t, cudamalloc.ErrNoDriver, func() (*cudamalloc.Backend, error) {
		return cudamalloc.Open(cudamalloc.Options{Guard: g})
	}, (*cudamalloc.Backend).Close)
}

func TestConformance(t *testing.T) {
	open(t, nil)
	gpuagenttest.TestBackend(t, func(g *backend.PhaseGuard) backend.Backend { return open(t, g) })
}

func TestFillAndGemm(t *testing.T) {
	b := open(t, nil)
	t.Logf("device: %+v", b.Info())
	g := cudamalloc.GEMM{M: 8, N: 4096, K: 4096, Type: cudamalloc.DTypeBF16}
	var rs [3]*backend.Region
	for i, n := range func() [3]uint64 { w, x, y := g.Bytes(); return [3]uint64{w, x, y} }() {
		r, err := b.Acquire(backend.Bytes(n), 0, backend.TagWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release(r)
		if err := b.Fill(r, 0); err != nil {
			t.Fatal(err)
		}
		rs[i] = r
	}
	if err := b.Gemm(g, rs[0], rs[1], rs[2]); err == nil {
		t.Error("Gemm before LoadBLAS succeeded")
	}
	path, err := b.LoadBLAS([]string{os.Getenv("VRAMPLAN_CUBLAS_DIR"), ""})
	if err != nil {
		t.Skipf("no cuBLAS: %v", err)
	}
	t.Logf("cuBLAS: %s", path)
	if err := b.Gemm(g, rs[0], rs[1], rs[2]); err != nil {
		t.Fatal(err)
	}
	if err := b.Synchronize(); err != nil {
		t.Fatal(err)
	}
}
