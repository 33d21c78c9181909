package mem_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

func newFake(g *backend.PhaseGuard) *gpuagenttest.Fake {
	return gpuagenttest.New(gpuagenttest.Config{Capacity: 256 * backend.MiB, Granularity: 64 * backend.KiB, Guard: g})
}

func quietGuard() *backend.PhaseGuard {
	g := backend.NewPhaseGuard()
	g.Logf = func(string, ...any) {}
	return g
}

func mustArena(t testing.TB, b backend.Backend, n backend.Bytes, tag backend.Tag) *mem.Arena {
	a, err := mem.NewArena(b, n, tag)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestArenaTake(t *testing.T) {
	f := newFake(nil)
	a := mustArena(t, f, 4096, backend.TagEngine)
	defer a.Close()
	tests := []struct {
		n, align backend.Bytes
		wantOff  backend.Bytes
		wantErr  error
	}{{10, 0, 0, nil}, {10, 0, 256, nil}, {100, 1024, 1024, nil}, {1, 1, 1124, nil}, {4096, 0, 0, mem.ErrArenaFull}}
	base := backend.Addr(0)
	for _, tt := range tests {
		s, err := a.Take(tt.n, tt.align)
		if base == 0 {
			base = s.Addr()
		}
		if err != tt.wantErr || err == nil && (s.Addr()-base != backend.Addr(tt.wantOff) || s.Len() != tt.n) {
			t.Errorf("Take(%d, %d) = %v at +%d, %v; want +%d, %v", tt.n, tt.align, s, s.Addr()-base, err, tt.wantOff, tt.wantErr)
		}
	}
}

// TestV3ArenaResetFreesWholesale also checks the generation counter (D12):
// a span kept across Reset is detectably stale.
func TestV3ArenaResetFreesWholesale(t *testing.T) {
	f := newFake(nil)
	a := mustArena(t, f, backend.MiB, backend.TagWeights)
	s, _ := a.Take(1000, 0)
	a.Take(5000, 0)
	if !a.Valid(s) {
		t.Fatalf("fresh span not Valid")
	}
	a.Reset()
	if a.Used() != 0 || a.Valid(s) || a.HighWater() < 6000 {
		t.Errorf("after Reset: Used=%v Valid(old)=%v HighWater=%v", a.Used(), a.Valid(s), a.HighWater())
	}
	a.Close()
	if f.Stats().ByTag[backend.TagWeights] != 0 {
		t.Errorf("weights bytes live after Close: %v", f.Stats().ByTag)
	}
	if msg := gpuagenttest.Panics(a.Close); !strings.Contains(msg, "double close of arena(tag=weights") {
		t.Errorf("second Close panicked with %q", msg)
	}
}

// TestModelSwap resets the model-resident arena (T1) inside the swap
// bracket and keeps the engine-persistent one (T2).
func TestModelSwap(t *testing.T) {
	g := quietGuard()
	f := newFake(g)
	t1 := mustArena(t, f, backend.MiB, backend.TagWeights)
	t2 := mustArena(t, f, backend.MiB, backend.TagEngine)
	w, _ := t1.Take(4096, 0)
	ws, _ := t2.Take(4096, 0)
	g.Advance(backend.PhaseServing, "model A")
	g.BeginSwap("model B")
	t1.Reset()
	w2, _ := t1.Take(8192, 0)
	g.EndSwap("model B")
	if t1.Valid(w) || !t1.Valid(w2) || !t2.Valid(ws) || t2.Used() != 4096 {
		t.Errorf("after swap: old weights valid=%v, new valid=%v, workspace valid=%v, T2 used %v", t1.Valid(w), t1.Valid(w2), t2.Valid(ws), t2.Used())
	}
	if n := g.SteadyStateAllocations(); len(n) != 0 {
		t.Errorf("swap allocated while serving: %v", n)
	}
	t1.Close()
	t2.Close()
}

func mustPool(t testing.TB, b backend.Backend, n int, tag backend.Tag) *mem.BlockPool {
	p, err := mem.NewBlockPool(b, n, 4096, tag)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBlockRefLifecycle(t *testing.T) {
	f := newFake(nil)
	p := mustPool(t, f, 2, backend.TagKVPool)
	a, _ := p.Acquire()
	b := a.Share()
	if a.ID() != 1 || b.ID() != 1 || p.RefCount(1) != 2 || p.Live() != 1 {
		t.Fatalf("after Share: ids %d %d refs %d live %d", a.ID(), b.ID(), p.RefCount(1), p.Live())
	}
	c := a.Move()
	if !a.IsNil() || c.ID() != 1 {
		t.Errorf("Move left %v and gave %d", a.ID(), c.ID())
	}
	c.Release()
	b.Release()
	if p.Free() != 2 || p.References() != 0 {
		t.Errorf("after releases: free %d refs %d", p.Free(), p.References())
	}
	if msg := gpuagenttest.Panics(b.Release); !strings.Contains(msg, "nil BlockRef") {
		t.Errorf("second Release panicked with %q", msg)
	}
	p.Close()
}

func TestBlockRefMisusePanics(t *testing.T) {
	f := newFake(nil)
	kv := mustPool(t, f, 4, backend.TagKVPool)
	swa := mustPool(t, f, 4, backend.TagSWAPool)
	s, _ := swa.Acquire()
	k, _ := kv.Acquire()
	tests := []struct {
		name, want string
		f          func()
	}{
		{"share an SWA block", "SWA blocks are never shared", func() { s.Share() }},
		{"cross pools", "of the swa block pool(4 blocks) in the kv block pool", func() { kv.Check(&s) }},
		{"span of id space", "id-space", spanOfIDSpace},
		{"close with live refs", "Close of kv block pool(4 blocks) with 1 live", kv.Close},
		{"stale copy", "stale BlockRef", func() { staleRelease(kv) }},
	}
	for _, tt := range tests {
		if msg := gpuagenttest.Panics(tt.f); !strings.Contains(msg, tt.want) {
			t.Errorf("%s: panic %q, want it to contain %q", tt.name, msg, tt.want)
		}
	}
	k.Release()
	s.Release()
	kv.Close()
	swa.Close()
}

func spanOfIDSpace() {
	p := mem.NewBlockIDSpace(1, backend.TagKVPool)
	r, _ := p.Acquire()
	defer p.Close()
	defer r.Release()
	r.Span()
}

// staleRelease releases a block through a copy made behind the pool's
// back, after the original was released. go vet reports such copies when
// written as assignments; reflect makes one vet cannot see.
func staleRelease(p *mem.BlockPool) {
	r, _ := p.Acquire()
	var stale mem.BlockRef
	reflect.ValueOf(&stale).Elem().Set(reflect.ValueOf(&r).Elem())
	r.Release()
	stale.Release()
}

func TestBlockSpans(t *testing.T) {
	f := newFake(nil)
	p := mustPool(t, f, 3, backend.TagKVPool)
	defer p.Close()
	var refs [3]mem.BlockRef
	for i := range refs {
		refs[i], _ = p.Acquire()
	}
	base := refs[0].Span().Addr()
	for i := range refs {
		if s := refs[i].Span(); s.Addr() != base+backend.Addr(4096*i) || s.Len() != 4096 {
			t.Errorf("block %d span = %v", refs[i].ID(), s)
		}
	}
	if _, err := p.Acquire(); !errors.Is(err, mem.ErrPoolFull) {
		t.Errorf("Acquire from a full pool = %v, want ErrPoolFull", err)
	}
	for i := range refs {
		refs[i].Release()
	}
}

func mustStack(t testing.TB, b backend.Backend, n backend.Bytes) *mem.ScratchStack {
	s, err := mem.NewScratchStack(b, n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestV6LIFO: marks rewind in reverse order; an out-of-order rewind is
// ErrMarkOrder and changes nothing.
func TestV6LIFO(t *testing.T) {
	s := mustStack(t, newFake(nil), 64*backend.KiB)
	outer := s.Mark()
	s.Take(1000, 0)
	inner := s.Mark()
	s.Take(3000, 0)
	if err := outer.Rewind(); !errors.Is(err, mem.ErrMarkOrder) || s.Used() != 4024 {
		t.Errorf("outer.Rewind() before inner = %v, used %v", err, s.Used())
	}
	if err := inner.Rewind(); err != nil || s.Used() != 1000 {
		t.Errorf("inner.Rewind() = %v, used %v", err, s.Used())
	}
	if err := inner.Rewind(); !errors.Is(err, mem.ErrMarkOrder) {
		t.Errorf("inner.Rewind() twice = %v", err)
	}
	if err := outer.Rewind(); err != nil || s.Used() != 0 || s.HighWater() != 4024 || s.Depth() != 0 {
		t.Errorf("outer.Rewind() = %v, used %v, high water %v", err, s.Used(), s.HighWater())
	}
	if _, err := s.Take(s.Capacity()+1, 0); !errors.Is(err, mem.ErrStackFull) {
		t.Errorf("Take(capacity+1) = %v", err)
	}
	s.Close()
}

func TestPinnedBuffer(t *testing.T) {
	f := newFake(nil)
	f.FailAcquire(1)
	if p, err := mem.NewPinnedBuffer(f, 4096); p != nil || !errors.Is(err, backend.ErrInjected) {
		t.Errorf("NewPinnedBuffer with a failing backend = %v, %v; want nil and the error", p, err)
	}
	p, err := mem.NewPinnedBuffer(f, 4096)
	if err != nil || f.Stats().ByTag[backend.TagPinned] != 4096 {
		t.Fatalf("NewPinnedBuffer = %v; stats %v", err, f.Stats().ByTag)
	}
	p.Close()
	if msg := gpuagenttest.Panics(p.Close); !strings.Contains(msg, "double close of PinnedBuffer") {
		t.Errorf("second Close panicked with %q", msg)
	}
}

// TestStagingMustBeGoneBeforeServing: T5a is asserted gone at the phase
// change to Serving.
func TestStagingMustBeGoneBeforeServing(t *testing.T) {
	g := quietGuard()
	st := mem.NewStaging(g)
	buf := st.Get(1 << 10)
	g.Advance(backend.PhasePlanning, "test")
	var err error
	msg := gpuagenttest.Panics(func() { err = g.Advance(backend.PhaseServing, "test") })
	if (err == nil && msg == "") || g.Phase() != backend.PhasePlanning {
		t.Fatalf("entering Serving with live staging: err=%v panic=%q phase=%v", err, msg, g.Phase())
	}
	buf.Release()
	if err := g.Advance(backend.PhaseServing, "test"); err != nil {
		t.Errorf("entering Serving after release = %v", err)
	}
	if msg := gpuagenttest.Panics(buf.Release); !strings.Contains(msg, "double release") {
		t.Errorf("second Release panicked with %q", msg)
	}
}
