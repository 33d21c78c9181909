package kv_test

// Proofs against the fake: V5 (refcount balance when a request fails at any
// step), criterion 4 (after a cancellation-heavy churn, live blocks return
// to the post-load baseline and every journaled byte is accounted for), and
// a fuzzer replaying random operation sequences against a counting model.
//
// V7 and V8 (plan determinism and sufficiency) are properties of the
// planner and are tested there; gpuagent covers V1–V6 and V9.

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// prefixHash gives the blocks of family f shared prefixes: position pos of
// any request of family f has the same content.
func prefixHash(f, pos int) kv.Hash { return kv.Hash(f*1000 + pos + 1) }

// request runs one request's lifecycle, failing by panic at step failAt
// (or not at all if failAt < 0). Every exit takes the same path: the
// deferred Close.
func request(m *kv.Manager, family, steps, failAt int) (err error) {
	s := m.NewSequence()
	defer s.Close()
	for i := range steps {
		if i == failAt {
			panic("injected fault")
		}
		if err = stepRequest(s, family, i); err != nil {
			return err
		}
	}
	return nil
}

func stepRequest(s *kv.Sequence, family, i int) error {
	switch i % 4 {
	case 0, 1:
		hit, err := s.Append(prefixHash(family, s.Len()))
		if err == nil && !hit {
			s.Seal(s.Len()-1, prefixHash(family, s.Len()-1))
		}
		return err
	case 2:
		return s.AppendSWA()
	}
	if s.Len() > 2 {
		s.EvictMiddle(1, 2)
	}
	return nil
}

// TestV5RefcountBalanceUnderFaults fails a request at every step of its
// lifecycle, and by pool exhaustion, and checks that the request's net
// contribution to every refcount is zero: whatever is live is held by the
// prefix cache alone.
func TestV5RefcountBalanceUnderFaults(t *testing.T) {
	const steps = 24
	for _, blocks := range []int{64, 5} { // 5 blocks: Append runs out mid-request
		r := newRig(t, blocks, 4, 0)
		for failAt := -1; failAt < steps; failAt++ {
			func() {
				defer func() { recover() }()
				err := request(r.m, failAt%3, steps, failAt)
				if err != nil && !errors.Is(err, mem.ErrPoolFull) {
					t.Fatalf("request: %v", err)
				}
			}()
			if st := r.m.Stats(); r.global.References() != st.CachedBlocks || st.SWALive != 0 || st.Sequences != 0 {
				t.Fatalf("blocks=%d failAt=%d: %d references, cache holds %d, SWA live %d", blocks, failAt, r.global.References(), st.CachedBlocks, st.SWALive)
			}
		}
		r.close(t)
	}
}

// TestV5BackendFaultAtEveryAcquisition fails each backend acquisition of
// the setup in turn; whatever was built is closed and the backend ends
// with nothing live.
func TestV5BackendFaultAtEveryAcquisition(t *testing.T) {
	for n := 1; n <= 3; n++ {
		f := gpuagenttest.New(gpuagenttest.Config{Capacity: 16 * backend.MiB, Granularity: 64 * backend.KiB})
		f.FailAcquire(n)
		if err := setup(f); !errors.Is(err, backend.ErrInjected) {
			t.Errorf("setup with acquisition %d failing = %v", n, err)
		}
		if s := f.Stats(); s.Live != 0 {
			t.Errorf("acquisition %d failing left %d regions live", n, s.Live)
		}
	}
}

// setup opens what a KV engine needs and closes it again, unwinding on the
// first failure.
func setup(f *gpuagenttest.Fake) error {
	arena, err := mem.NewArena(f, backend.MiB, backend.TagEngine)
	if err != nil {
		return err
	}
	defer arena.Close()
	g, err := mem.NewBlockPool(f, 16, 4096, backend.TagKVPool)
	if err != nil {
		return err
	}
	defer g.Close()
	s, err := mem.NewBlockPool(f, 16, 4096, backend.TagSWAPool)
	if err != nil {
		return err
	}
	s.Close()
	return nil
}

// TestCriterion4Churn runs 100k cancellation-heavy operations while
// serving and checks that live blocks return to the post-load baseline and
// that the journal accounts for every byte.
func TestCriterion4Churn(t *testing.T) {
	g := backend.NewPhaseGuard()
	g.Logf = t.Logf
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB, Granularity: 64 * backend.KiB, Guard: g})
	global, _ := mem.NewBlockPool(f, 64, 4096, backend.TagKVPool)
	swa, _ := mem.NewBlockPool(f, 16, 1024, backend.TagSWAPool)
	m := kv.New(kv.Config{Global: global, SWA: swa})
	baseline := loadSystemPrompt(t, m)
	g.Advance(backend.PhaseServing, "churn")

	c := churn{m: m, rng: rand.New(rand.NewPCG(5, 5))}
	for range 100_000 {
		c.step()
	}
	c.closeAll()
	m.Reclaim(1 << 30)
	if st := m.Stats(); st.GlobalLive != baseline || st.SWALive != 0 || global.References() != baseline {
		t.Errorf("after churn: %+v, %d references; want %d live (the post-load baseline)", st, global.References(), baseline)
	}
	t.Logf("%d cancellations, %d out-of-blocks error paths", c.cancels, c.errors)
	if n := g.SteadyStateAllocations(); len(n) != 0 || c.cancels < 10_000 || c.errors < 100 {
		t.Errorf("steady-state allocations %v; want none, and a churn heavy in cancellations and error paths", n)
	}
	checkJournal(t, f, backend.Bytes(64*4096+16*1024))
	m.Unpin("system")
	m.Close()
	global.Close()
	swa.Close()
	checkJournal(t, f, 0)
}

func loadSystemPrompt(t *testing.T, m *kv.Manager) int {
	snap := kv.Snapshot{}
	for pos := range 32 {
		snap.Hashes = append(snap.Hashes, prefixHash(0, pos))
	}
	loaded, err := m.LoadPrefix(snap)
	if err != nil || m.Pin("system", snap.Hashes...) != 32 {
		t.Fatalf("LoadPrefix = %d, %v", len(loaded), err)
	}
	return m.Stats().GlobalLive
}

func checkJournal(t *testing.T, f *gpuagenttest.Fake, want backend.Bytes) {
	var sum backend.Bytes
	for _, e := range f.Journal() {
		sum += e.Bytes
	}
	if s := f.Stats(); sum != want || s.Committed != want {
		t.Errorf("journal accounts for %d bytes, backend has %d committed, want %d", sum, s.Committed, want)
	}
}

type churn struct {
	m       *kv.Manager
	rng     *rand.Rand
	seqs    []*kv.Sequence
	fams    []int
	cancels int
	errors  int
}

func (c *churn) step() {
	if len(c.seqs) < 24 && c.rng.IntN(8) == 0 || len(c.seqs) == 0 {
		c.seqs = append(c.seqs, c.m.NewSequence())
		c.fams = append(c.fams, c.rng.IntN(8))
		return
	}
	i := c.rng.IntN(len(c.seqs))
	s := c.seqs[i]
	switch op := c.rng.IntN(30); {
	case op < 4: // cancellation, disconnect
		c.end(i)
		c.cancels++
	case op < 5: // completion
		c.end(i)
	case op < 6:
		if s.Len() > 3 {
			s.EvictMiddle(1, s.Len()-2)
		}
	default:
		if stepRequest(s, c.fams[i], op) != nil { // out of blocks: the error path
			c.end(i)
			c.errors++
		}
	}
}

func (c *churn) end(i int) {
	c.seqs[i].Close()
	last := len(c.seqs) - 1
	c.seqs[i], c.fams[i] = c.seqs[last], c.fams[last]
	c.seqs, c.fams = c.seqs[:last], c.fams[:last]
}

func (c *churn) closeAll() {
	for len(c.seqs) > 0 {
		c.end(0)
	}
}

// FuzzManager replays random operations and checks, after each, that the
// pool's references are exactly those the holders account for: the filled
// slots of every open sequence, the cache's entries and an open save.
func FuzzManager(f *testing.F) {
	f.Add([]byte{0, 1, 1, 9, 2, 3, 4, 0, 5, 6, 7, 8, 10, 11})
	f.Add([]byte{0, 1, 9, 1, 9, 1, 9, 5, 0, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		r := newRig(t, 6, 3, 4)
		fz := fuzzState{r: r}
		for i, op := range ops {
			fz.step(op)
			if err := fz.check(); err != "" {
				t.Fatalf("after op %d (%d): %s", i, op, err)
			}
		}
		fz.finish()
		r.close(t)
	})
}
