package gpuagenttest

// This file is the conformance suite every Backend must pass, in the manner
// of testing/fstest.TestFS: the fake runs it in every `go test`, the CUDA
// backends run it when a GPU is present.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
)

// TestBackend checks that the backends returned by newBackend behave as the
// Backend contract and the CUDA driver say. newBackend is called once per
// subtest with a fresh PhaseGuard in PhaseLoading, which the backend must
// consult on every acquisition. The suite acquires up to about half of the
// backend's Stats().Total, so a fake should be configured small.
func TestBackend(t *testing.T, newBackend func(g *backend.PhaseGuard) backend.Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, backend.Backend, *backend.PhaseGuard)
	}{
		{"AcquireRelease", testAcquireRelease},
		{"Alignment", testAlignment},
		{"InvalidValue", testInvalidValue},
		{"OutOfMemory", testOutOfMemory},
		{"DoubleReleasePanics", testDoubleRelease},
		{"Growable", testGrowable},
		{"GrowableErrors", testGrowableErrors},
		{"ServingIsCounted", testServing},
		{"Concurrent", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := backend.NewPhaseGuard()
			g.Logf = t.Logf
			tt.fn(t, newBackend(g), g)
		})
	}
}

func mustAcquire(t *testing.T, b backend.Backend, n, align backend.Bytes, tag backend.Tag) *backend.Region {
	t.Helper()
	r, err := b.Acquire(n, align, tag)
	if err != nil {
		t.Fatalf("Acquire(%d, %d, %v) = %v", n, align, tag, err)
	}
	return r
}

func testAcquireRelease(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	base := b.Stats()
	sizes := []backend.Bytes{1, 4096, 1 << 20}
	var rs []*backend.Region
	for i, n := range sizes {
		r := mustAcquire(t, b, n, 0, backend.TagKVPool+backend.Tag(i))
		if r.Committed() != n || r.Reserved() < n || r.Base() == 0 {
			t.Errorf("Acquire(%d) = %v, want %d bytes committed at a non-nil base", n, r, n)
		}
		rs = append(rs, r)
	}
	s := b.Stats()
	if s.Live != base.Live+3 || s.Committed-base.Committed != 1+4096+1<<20 || s.ByTag[backend.TagKVPool] != 1 {
		t.Errorf("Stats after 3 acquires = %+v, base %+v", s, base)
	}
	for _, r := range rs {
		b.Release(r)
	}
	if s := b.Stats(); s.Live != base.Live || s.Committed != base.Committed || s.Free != base.Free {
		t.Errorf("Stats after release = %+v, want %+v", s, base)
	}
}

func testAlignment(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	for _, align := range []backend.Bytes{0, 256, 4096, 64 << 10} {
		r := mustAcquire(t, b, 100, align, backend.TagEngine)
		if a := max(align, 256); backend.Bytes(r.Base())%a != 0 {
			t.Errorf("Acquire(100, %d).Base() = %#x, not aligned to %d", align, uint64(r.Base()), a)
		}
		b.Release(r)
	}
	if _, err := b.Acquire(100, 3000, backend.TagEngine); !errors.Is(err, backend.ErrInvalidValue) {
		t.Errorf("Acquire(100, align=3000) = %v, want ErrInvalidValue", err)
	}
}

func testInvalidValue(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	total := b.Stats().Total
	cases := []struct {
		n   backend.Bytes
		tag backend.Tag
	}{{0, backend.TagEngine}, {-1, backend.TagEngine}, {total + 1, backend.TagEngine}, {64, backend.TagNone}}
	for _, c := range cases {
		if r, err := b.Acquire(c.n, 0, c.tag); !errors.Is(err, backend.ErrInvalidValue) || r != nil {
			t.Errorf("Acquire(%d, tag=%v) = %v, %v; want nil, ErrInvalidValue", c.n, c.tag, r, err)
		}
	}
}

func testOutOfMemory(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	s := b.Stats()
	hold := mustAcquire(t, b, s.Free/2+s.Granularity, 0, backend.TagWeights)
	defer b.Release(hold)
	want := b.Stats().Free + s.Granularity
	if r, err := b.Acquire(want, 0, backend.TagWeights); !errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("Acquire(%v) with %v free = %v, %v; want ErrOutOfMemory", want, b.Stats().Free, r, err)
	}
	var be *backend.Error
	if _, err := b.Acquire(want, 0, backend.TagWeights); !errors.As(err, &be) || be.Tag != backend.TagWeights {
		t.Errorf("Acquire error = %#v, want a *backend.Error carrying the tag", err)
	}
}

func testDoubleRelease(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	r := mustAcquire(t, b, 64, 0, backend.TagSWAPool)
	b.Release(r)
	msg := Panics(func() { b.Release(r) })
	if !strings.Contains(msg, "tag=swa") {
		t.Errorf("second Release panicked with %q, want a panic naming tag=swa", msg)
	}
}

// Panics runs f and returns what it panicked with, formatted with
// fmt.Sprint, or "" if it did not panic.
func Panics(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

func testGrowable(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	g := b.Stats().Granularity
	r, err := b.AcquireGrowable(16*g, 2*g, backend.TagKVPool)
	if errors.Is(err, backend.ErrNotGrowable) {
		t.Skip("backend has no growable regions")
	}
	if err != nil {
		t.Fatalf("AcquireGrowable(%v, %v) = %v", 16*g, 2*g, err)
	}
	defer b.Release(r)
	base := r.Base()
	for _, step := range []backend.Bytes{4, 10, 16, 10, 4, 2, 0, 6} {
		grow := b.Commit
		if step*g < r.Committed() {
			grow = b.Decommit
		}
		if err := grow(r, step*g); err != nil || r.Committed() != step*g || r.Base() != base {
			t.Fatalf("resize to %v: err=%v committed=%v base=%#x, want base %#x", step*g, err, r.Committed(), uint64(r.Base()), uint64(base))
		}
	}
}

func testGrowableErrors(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	g := b.Stats().Granularity
	plain := mustAcquire(t, b, g, 0, backend.TagEngine)
	defer b.Release(plain)
	if err := b.Commit(plain, 2*g); !errors.Is(err, backend.ErrNotGrowable) {
		t.Errorf("Commit(plain region) = %v, want ErrNotGrowable", err)
	}
	r, err := b.AcquireGrowable(8*g, 0, backend.TagKVPool)
	if errors.Is(err, backend.ErrNotGrowable) {
		t.Skip("backend has no growable regions")
	}
	if err != nil {
		t.Fatalf("AcquireGrowable = %v", err)
	}
	defer b.Release(r)
	checkGrowErrors(t, b, r, g)
}

func checkGrowErrors(t *testing.T, b backend.Backend, r *backend.Region, g backend.Bytes) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"reserve not a multiple of granularity", second(b.AcquireGrowable(g+1, 0, backend.TagKVPool))},
		{"commit not a multiple of granularity", b.Commit(r, g/2)},
		{"commit past the reservation", b.Commit(r, 9*g)},
		{"commit 2 chunks", b.Commit(r, 2*g)},
		{"commit 2 more", b.Commit(r, 4*g)},
		{"decommit inside a chunk", b.Decommit(r, 3*g)},
	} {
		want := backend.ErrInvalidValue
		if strings.HasPrefix(c.name, "commit 2") {
			want = nil
		}
		if !errors.Is(c.err, want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, want)
		}
	}
	if r.Committed() != 4*g {
		t.Errorf("after a failed decommit Committed() = %v, want %v", r.Committed(), 4*g)
	}
}

func second[T any](_ T, err error) error { return err }

func testServing(t *testing.T, b backend.Backend, g *backend.PhaseGuard) {
	for _, p := range []backend.Phase{backend.PhasePlanning, backend.PhaseServing} {
		if err := g.Advance(p, "conformance"); err != nil {
			t.Fatal(err)
		}
	}
	msg := Panics(func() {
		r, err := b.Acquire(64, 0, backend.TagScratch)
		if err == nil {
			b.Release(r)
		}
	})
	if invariants.Enabled {
		if !strings.Contains(msg, "tag=scratch") || !strings.Contains(msg, "goroutine") {
			t.Errorf("acquire while serving panicked with %q, want the tag and a stack", msg)
		}
		return
	}
	if got := g.SteadyStateAllocations(); got[backend.TagScratch] != 1 || msg != "" {
		t.Errorf("SteadyStateAllocations() = %v (panic %q), want scratch:1", got, msg)
	}
}

func testConcurrent(t *testing.T, b backend.Backend, _ *backend.PhaseGuard) {
	base := b.Stats()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if r, err := b.Acquire(backend.Bytes(64*(i+w+1)), 0, backend.TagWorkspace); err == nil {
					b.Release(r)
				}
			}
		}()
	}
	wg.Wait()
	if s := b.Stats(); s.Live != base.Live || s.Committed != base.Committed || s.Acquires != base.Acquires+400 {
		t.Errorf("after concurrent churn Stats = %+v, base %+v", s, base)
	}
}
