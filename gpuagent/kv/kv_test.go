package kv_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// rig is a manager over two pools on a fake backend.
type rig struct {
	f           *gpuagenttest.Fake
	global, swa *mem.BlockPool
	m           *kv.Manager
}

func newRig(t testing.TB, global, swa, cacheCap int) *rig {
	t.Helper()
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB, Granularity: 64 * backend.KiB})
	r := &rig{f: f}
	var err error
	if r.global, err = mem.NewBlockPool(f, global, 4096, backend.TagKVPool); err != nil {
		t.Fatal(err)
	}
	if r.swa, err = mem.NewBlockPool(f, swa, 1024, backend.TagSWAPool); err != nil {
		t.Fatal(err)
	}
	r.m = kv.New(kv.Config{Global: r.global, SWA: r.swa, CacheCapacity: cacheCap})
	return r
}

// close tears the rig down and checks that every byte the fake journaled
// came back.
func (r *rig) close(t testing.TB) {
	t.Helper()
	r.m.Close()
	r.global.Close()
	r.swa.Close()
	if s := r.f.Stats(); s.Live != 0 || s.Committed != 0 {
		t.Errorf("after teardown the backend has %d regions, %v committed", s.Live, s.Committed)
	}
}

func TestPrefixHitSharesTheBlock(t *testing.T) {
	r := newRig(t, 8, 4, 0)
	a := r.m.NewSequence()
	a.Append(0)
	a.Seal(0, 11)
	a.Close() // block moves into the cache
	b, c := r.m.NewSequence(), r.m.NewSequence()
	hitB, _ := b.Append(11)
	hitC, _ := c.Append(11)
	id := b.BlockTable(nil)[0]
	if !hitB || !hitC || c.BlockTable(nil)[0] != id || r.global.RefCount(mem.BlockID(id)) != 3 {
		t.Errorf("hits %v %v, ids %v %v, refcount %d; want both to share one block with 3 references", hitB, hitC, b.BlockTable(nil), c.BlockTable(nil), r.global.RefCount(mem.BlockID(id)))
	}
	b.Close()
	c.Close()
	if st := r.m.Stats(); st.GlobalLive != 1 || st.CachedBlocks != 1 {
		t.Errorf("Stats() = %+v, want the cached block alone", st)
	}
	r.close(t)
}

func TestHolesKeepTheLength(t *testing.T) {
	r := newRig(t, 8, 8, 0)
	s := r.m.NewSequence()
	for range 5 {
		s.Append(0)
		s.AppendSWA()
	}
	s.EvictMiddle(1, 3)
	s.EvictSWA(0, 4)
	if got, want := s.BlockTable(nil), []int32{1, -1, -1, 4, 5}; !slices.Equal(got, want) || s.Len() != 5 {
		t.Errorf("BlockTable() = %v, want %v", got, want)
	}
	if got, want := s.SWATable(nil), []int32{-1, -1, -1, -1, 5}; !slices.Equal(got, want) {
		t.Errorf("SWATable() = %v, want %v", got, want)
	}
	if r.global.Live() != 3 || r.swa.Live() != 1 {
		t.Errorf("live global %d swa %d, want 3 and 1", r.global.Live(), r.swa.Live())
	}
	s.Close()
	r.close(t)
}

func TestPinsArePolicyNotOwners(t *testing.T) {
	r := newRig(t, 2, 1, 0)
	for _, h := range []kv.Hash{1, 2} {
		s := r.m.NewSequence()
		s.Append(0)
		s.Seal(0, h)
		s.Close()
	}
	r.m.Pin("agent", 1)
	refs := r.global.References()
	s := r.m.NewSequence()
	if _, err := s.Append(0); err != nil || r.m.Cached(2) || !r.m.Cached(1) {
		t.Errorf("Append with a full pool = %v; cached 1=%v 2=%v; want 2 reclaimed, 1 kept by its pin", err, r.m.Cached(1), r.m.Cached(2))
	}
	if refs != 2 || r.m.Stats().PinnedBlocks != 1 {
		t.Errorf("pins changed references: %d before, pinned %d", refs, r.m.Stats().PinnedBlocks)
	}
	if _, err := s.Append(0); !errors.Is(err, mem.ErrPoolFull) {
		t.Errorf("Append with only a pinned entry left = %v, want ErrPoolFull", err)
	}
	r.m.Unpin("agent")
	if _, err := s.Append(0); err != nil || r.m.Cached(1) {
		t.Errorf("Append after Unpin = %v, cached(1)=%v", err, r.m.Cached(1))
	}
	s.Close()
	r.close(t)
}

func TestSWABlocksAreNeverShared(t *testing.T) {
	r := newRig(t, 2, 2, 0)
	s := r.m.NewSequence()
	s.AppendSWA()
	var ref mem.BlockRef
	ref, _ = r.swa.Acquire()
	if msg := gpuagenttest.Panics(func() { ref.Share() }); !strings.Contains(msg, "never shared") {
		t.Errorf("Share of an SWA block panicked with %q", msg)
	}
	ref.Release()
	s.Close()
	if r.m.Stats().CachedBlocks != 0 || r.swa.Live() != 0 {
		t.Errorf("SWA blocks survived Close: %+v", r.m.Stats())
	}
	if msg := gpuagenttest.Panics(func() { kv.New(kv.Config{Global: r.swa}) }); msg == "" {
		t.Errorf("New with an SWA pool as the global pool did not panic")
	}
	r.close(t)
}

func TestCacheCapacity(t *testing.T) {
	r := newRig(t, 8, 1, 2)
	s := r.m.NewSequence()
	for i := range 4 {
		s.Append(0)
		s.Seal(i, kv.Hash(i+1))
	}
	s.Close()
	if st := r.m.Stats(); st.CachedBlocks != 2 || st.GlobalLive != 2 || !r.m.Cached(4) || r.m.Cached(1) {
		t.Errorf("Stats() = %+v with capacity 2, want the 2 most recent", st)
	}
	r.close(t)
}

func TestCloseTwicePanics(t *testing.T) {
	r := newRig(t, 2, 1, 0)
	s := r.m.NewSequence()
	s.Close()
	if msg := gpuagenttest.Panics(s.Close); !strings.Contains(msg, "closed Sequence") {
		t.Errorf("second Close panicked with %q", msg)
	}
	open := r.m.NewSequence()
	if msg := gpuagenttest.Panics(r.m.Close); !strings.Contains(msg, "1 open sequences") {
		t.Errorf("Manager.Close with an open sequence panicked with %q", msg)
	}
	open.Close()
	r.close(t)
}

// TestSaveLoad saves a cache, evicts it all while the save holds its
// references, and loads it into a second manager by acquiring fresh
// references.
func TestSaveLoad(t *testing.T) {
	r := newRig(t, 8, 1, 0)
	s := r.m.NewSequence()
	for i := range 3 {
		s.Append(0)
		s.Seal(i, kv.Hash(100+i))
	}
	s.Close()
	saved := r.m.SavePrefix()
	if saved.Block(0) == 0 || saved.Block(2) == 0 {
		t.Errorf("Saved.Block = 0, want the blocks to copy from")
	}
	r.m.Reclaim(10)
	if r.global.Live() != 3 {
		t.Errorf("after reclaim with a save open, %d blocks live, want 3", r.global.Live())
	}
	data, _ := json.Marshal(saved.Snapshot)
	saved.Close()
	if r.global.Live() != 0 || string(data) != `{"hashes":[100,101,102]}` {
		t.Errorf("after closing the save: %d live; snapshot %s", r.global.Live(), data)
	}
	var snap kv.Snapshot
	json.Unmarshal(data, &snap)
	r2 := newRig(t, 2, 1, 0)
	loaded, err := r2.m.LoadPrefix(snap)
	if len(loaded) != 2 || !errors.Is(err, mem.ErrPoolFull) || !r2.m.Cached(101) || r2.global.References() != 2 {
		t.Errorf("LoadPrefix into 2 blocks = %v, %v; refs %d", loaded, err, r2.global.References())
	}
	r.close(t)
	r2.close(t)
}

// TestReclaimFrom drops the unpinned cache entries at or above an id and
// keeps pinned ones and the blocks sequences hold.
func TestReclaimFrom(t *testing.T) {
	r := newRig(t, 8, 4, 0)
	a := r.m.NewSequence()
	for i := range 4 {
		a.Append(0)
		a.Seal(i, kv.Hash(100+i))
	}
	a.Close() // blocks 1..4 cached under hashes 100..103
	r.m.Pin("p", 103)
	b := r.m.NewSequence()
	b.Append(102) // a sequence shares block 3
	if n := r.m.ReclaimFrom(2); n != 2 {
		t.Errorf("ReclaimFrom(2) dropped %d entries, want 2 (blocks 2 and 3; 4 is pinned)", n)
	}
	if r.m.Cached(101) || r.m.Cached(102) || !r.m.Cached(100) || !r.m.Cached(103) {
		t.Errorf("after ReclaimFrom(2) cached: 100 %v 101 %v 102 %v 103 %v", r.m.Cached(100), r.m.Cached(101), r.m.Cached(102), r.m.Cached(103))
	}
	if r.global.RefCount(3) != 1 || r.global.RefCount(2) != 0 {
		t.Errorf("refcounts: block 2 %d, block 3 %d; want 0 and the sequence's 1", r.global.RefCount(2), r.global.RefCount(3))
	}
	b.Close()
	r.m.Unpin("p")
	r.close(t)
}
