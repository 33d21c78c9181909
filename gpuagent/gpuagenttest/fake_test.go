package gpuagenttest_test

import (
	"errors"
	"math/rand/v2"
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

// TestV1Conservation replays the journal after every operation of a random
// sequence: Σ acquired − Σ released equals the live bytes the fake reports.
func TestV1Conservation(t *testing.T) {
	f := small(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var live []*backend.Region
	for i := range 2000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			j := rng.IntN(len(live))
			f.Release(live[j])
			live = append(live[:j], live[j+1:]...)
		} else if r, err := f.Acquire(backend.Bytes(1+rng.IntN(1<<16)), 0, backend.TagEngine); err == nil {
			live = append(live, r)
		}
		if sum, st := journalSum(f.Journal()), f.Stats(); sum != st.Committed || st.Live != len(live) {
			t.Fatalf("op %d: journal says %d live bytes, Stats says %d (%d regions, want %d)", i, sum, st.Committed, st.Live, len(live))
		}
	}
	for _, r := range live {
		f.Release(r)
	}
	if sum, st := journalSum(f.Journal()), f.Stats(); sum != 0 || st.Live != 0 || st.Committed != 0 {
		t.Errorf("after releasing everything: journal %d bytes, Stats %+v", sum, st)
	}
}

func journalSum(es []gpuagenttest.Entry) (sum backend.Bytes) {
	for _, e := range es {
		sum += e.Bytes
	}
	return sum
}

// TestV9StableUnderGrowth grows a region tenfold and back, checking that its
// base never moves and that data in the first chunk survives.
func TestV9StableUnderGrowth(t *testing.T) {
	f := small(nil)
	r, err := f.AcquireGrowable(40*g, 4*g, backend.TagKVPool)
	if err != nil {
		t.Fatal(err)
	}
	base := r.Base()
	f.Device().Write(base, []byte("kv"))
	for _, n := range []backend.Bytes{8, 16, 24, 32, 40, 32, 8, 4, 40} {
		op := f.Commit
		if n*g < r.Committed() {
			op = f.Decommit
		}
		if err := op(r, n*g); err != nil || r.Base() != base {
			t.Fatalf("resize to %d chunks: %v, base %#x want %#x", n, err, uint64(r.Base()), uint64(base))
		}
		if b, _ := f.Device().Read(base, 2); string(b) != "kv" {
			t.Fatalf("after resize to %d chunks the first chunk reads %q", n, b)
		}
	}
	f.Release(r)
}

func TestPoisonAndQuarantine(t *testing.T) {
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: backend.MiB, Granularity: g, Quarantine: 2})
	var rs []*backend.Region
	for range 3 {
		r, _ := f.Acquire(16, 0, backend.TagEngine)
		f.Device().Write(r.Base(), []byte{7})
		rs = append(rs, r)
	}
	for _, r := range rs {
		f.Release(r)
	}
	if _, ok := f.Device().Read(rs[0].Base(), 1); ok {
		t.Errorf("oldest released region still readable past a 2-entry quarantine")
	}
	for _, r := range rs[1:] {
		if b, ok := f.Device().Read(r.Base(), 16); !ok || b[0] != gpuagenttest.Poison || b[15] != gpuagenttest.Poison {
			t.Errorf("released region reads %x, %v; want poison", b, ok)
		}
	}
}

func TestFailCommit(t *testing.T) {
	f := small(nil)
	r, _ := f.AcquireGrowable(8*g, g, backend.TagKVPool)
	f.FailCommit(2)
	errs := []error{f.Commit(r, 2*g), f.Commit(r, 3*g), f.Commit(r, 3*g)}
	if errs[0] != nil || !errors.Is(errs[1], backend.ErrInjected) || errs[2] != nil || r.Committed() != 3*g {
		t.Errorf("commits with the 2nd failing = %v, committed %v", errs, r.Committed())
	}
	f.Release(r)
}

func TestBudget(t *testing.T) {
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: backend.MiB, Granularity: g, Budget: 256 * backend.KiB})
	if _, err := f.Acquire(300*backend.KiB, 0, backend.TagEngine); !errors.Is(err, backend.ErrBudget) {
		t.Errorf("Acquire over budget = %v, want ErrBudget", err)
	}
}

// TestV2NoAllocationWhileServing drives a synthetic decode loop that uses
// only memory acquired before serving, and checks the journal holds no
// acquisition in PhaseServing.
func TestV2NoAllocationWhileServing(t *testing.T) {
	gd := backend.NewPhaseGuard()
	gd.Logf = t.Logf
	f := small(gd)
	kv, _ := f.Acquire(backend.MiB, 0, backend.TagKVPool)
	gd.Advance(backend.PhasePlanning, "test")
	gd.Advance(backend.PhaseServing, "test")
	for step := range 100 {
		f.Device().Write(kv.Base()+backend.Addr(step), []byte{byte(step)})
	}
	for _, e := range f.Journal() {
		if e.Op == gpuagenttest.OpAcquire && e.Phase == backend.PhaseServing {
			t.Errorf("journal has an acquisition while serving: %v", e)
		}
	}
	if n := gd.SteadyStateAllocations(); len(n) != 0 {
		t.Errorf("SteadyStateAllocations() = %v, want none", n)
	}
	f.Release(kv)
}

func TestFakeSharerConformance(t *testing.T) {
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB, Granularity: 64 * backend.KiB, Chunk: 128 * backend.KiB, Export: true})
	var b backend.Backend = f
	s, ok := b.(backend.Sharer)
	if !ok {
		t.Skip("the fake shares memory only on Linux")
	}
	gpuagenttest.TestSharer(t, s, newImporter)
}
