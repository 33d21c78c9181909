package mem_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// The hot paths allocate nothing. Allocation counts, never timing, are
// asserted here; timing is in the benchmarks.
func TestHotPathsDoNotAllocate(t *testing.T) {
	f := newFake(nil)
	p := mustPool(t, f, 16, backend.TagKVPool)
	s := mustStack(t, f, backend.MiB)
	a := mustArena(t, f, backend.MiB, backend.TagEngine)
	defer p.Close()
	defer s.Close()
	defer a.Close()
	tests := []struct {
		name string
		f    func()
	}{
		{"block acquire+release", func() { r, _ := p.Acquire(); r.Release() }},
		{"block share+release", func() { r, _ := p.Acquire(); c := r.Share(); c.Release(); r.Release() }},
		{"stack mark+take+rewind", func() { m := s.Mark(); s.Take(4096, 256); m.Rewind() }},
		{"arena take", func() { a.Take(64, 0); a.Reset() }},
	}
	for _, tt := range tests {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tt.name, n)
		}
	}
}

func BenchmarkBlockAcquireRelease(b *testing.B) {
	p := mustPool(b, newFake(nil), 1024, backend.TagKVPool)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := p.Acquire()
		r.Release()
	}
}

func BenchmarkBlockShare(b *testing.B) {
	p := mustPool(b, newFake(nil), 1024, backend.TagKVPool)
	r, _ := p.Acquire()
	b.ReportAllocs()
	for b.Loop() {
		c := r.Share()
		c.Release()
	}
}

func BenchmarkArenaTake(b *testing.B) {
	a := mustArena(b, newFake(nil), backend.MiB, backend.TagEngine)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := a.Take(64, 64); err != nil {
			a.Reset()
		}
	}
}

func BenchmarkStackMarkTakeRewind(b *testing.B) {
	s := mustStack(b, newFake(nil), backend.MiB)
	b.ReportAllocs()
	for b.Loop() {
		m := s.Mark()
		s.Take(4096, 256)
		s.Take(100, 0)
		m.Rewind()
	}
}

func BenchmarkStackTake(b *testing.B) {
	s := mustStack(b, newFake(nil), backend.MiB)
	b.ReportAllocs()
	m := s.Mark()
	for b.Loop() {
		if _, err := s.Take(64, 64); err != nil {
			m.Rewind()
			m = s.Mark()
		}
	}
}

// TestLeakReported drops an open arena on the floor; under the invariants
// build tag the garbage collector's cleanup reports it.
func TestLeakReported(t *testing.T) {
	if !invariants.Enabled {
		t.Skip("leak reports need -tags invariants")
	}
	got := make(chan string, 16)
	prev := leak.SetHandler(func(what string) {
		select {
		case got <- what:
		default:
		}
	})
	defer func() {
		// The arena's region is reported too, perhaps a collection later:
		// keep this handler until the reports stop, so that it does not
		// reach the default one and fail the binary (leaktest.Main).
		for range 5 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		leak.SetHandler(prev)
	}()
	func() { mustArena(t, newFake(nil), 4096, backend.TagWorkspace) }()
	for range 10 {
		runtime.GC()
		select {
		case what := <-got:
			if !strings.Contains(what, "arena(tag=workspace") && !strings.Contains(what, "tag=workspace") {
				t.Errorf("leak report %q does not name the arena", what)
			}
			return
		default:
		}
	}
	t.Errorf("no leak report for a dropped arena")
}
