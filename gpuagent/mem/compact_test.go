package mem_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// TestCompactIDSpace checks against a model that the lowest free id comes
// out first and that the per-bucket counts follow every acquire and
// release.
func TestCompactIDSpace(t *testing.T) {
	const blocks, per = 200, 7
	bucket := func(id mem.BlockID) int { return (int(id) - 1) / per }
	p := mem.NewCompactIDSpace(blocks, backend.TagKVPool, (blocks+per-1)/per, bucket)
	rng := rand.New(rand.NewPCG(3, 4))
	var held []mem.BlockRef
	free := map[mem.BlockID]bool{}
	for id := 1; id <= blocks; id++ {
		free[mem.BlockID(id)] = true
	}
	acq := map[int]uint64{}
	for i := range 20000 {
		if len(held) > 0 && rng.IntN(2) == 0 {
			j := rng.IntN(len(held))
			free[held[j].ID()] = true
			held[j].Release()
			held[j] = held[len(held)-1].Move()
			held = held[:len(held)-1]
		} else if r, err := p.Acquire(); err == nil {
			if want := lowest(free); r.ID() != want {
				t.Fatalf("op %d: Acquire = block %d, want the lowest free %d", i, r.ID(), want)
			}
			delete(free, r.ID())
			acq[bucket(r.ID())]++
			held = append(held, r.Move())
		}
		checkBuckets(t, p, held, acq, bucket)
	}
	for i := range held {
		held[i].Release()
	}
	p.Close()
}

func lowest(free map[mem.BlockID]bool) mem.BlockID {
	ids := make([]mem.BlockID, 0, len(free))
	for id := range free {
		ids = append(ids, id)
	}
	return slices.Min(ids)
}

func checkBuckets(t *testing.T, p *mem.BlockPool, held []mem.BlockRef, acq map[int]uint64, bucket func(mem.BlockID) int) {
	t.Helper()
	live := map[int]int{}
	for i := range held {
		live[bucket(held[i].ID())]++
	}
	for k := range (p.Blocks() + 6) / 7 {
		if p.BucketLive(k) != live[k] || p.BucketAcquires(k) != acq[k] {
			t.Fatalf("bucket %d: live %d, acquires %d; want %d, %d", k, p.BucketLive(k), p.BucketAcquires(k), live[k], acq[k])
		}
	}
}

func TestCompactIDSpaceDoesNotAllocate(t *testing.T) {
	p := mem.NewCompactIDSpace(64, backend.TagKVPool, 8, func(id mem.BlockID) int { return (int(id) - 1) / 8 })
	defer p.Close()
	if n := testing.AllocsPerRun(1000, func() {
		r, _ := p.Acquire()
		r.Release()
	}); n != 0 {
		t.Errorf("Acquire+Release allocated %.1f times, want 0", n)
	}
}

// TestCompactIDSpaceIsLazy holds issue 31's FuzzAgent finding: making an
// id space does no work per block (filling its free list and asking every
// block's bucket was most of making the agent's KV pools); a block's
// bucket is asked once, when the block is first handed out, and the ids
// come out lowest first all the same.
func TestCompactIDSpaceIsLazy(t *testing.T) {
	calls := 0
	bucket := func(id mem.BlockID) int { calls++; return int(id-1) >> 10 }
	const blocks = 1 << 20
	p := mem.NewCompactIDSpace(blocks, backend.TagKVPool, blocks>>10, bucket)
	if calls > 2 {
		t.Errorf("NewCompactIDSpace(%d blocks) asked for %d buckets, want at most 2", blocks, calls)
	}
	var held [3]mem.BlockRef
	for i := range held {
		held[i], _ = p.Acquire()
	}
	held[1].Release()
	again, _ := p.Acquire()
	if got := []mem.BlockID{held[0].ID(), again.ID(), held[2].ID()}; !slices.Equal(got, []mem.BlockID{1, 2, 3}) || p.Free() != blocks-3 {
		t.Errorf("ids %v with %d free, want [1 2 3] with %d", got, p.Free(), blocks-3)
	}
	if calls > 5 || p.BucketLive(0) != 3 || p.Bucket(blocks) != blocks>>10-1 {
		t.Errorf("%d bucket calls for 3 blocks, bucket 0 live %d, last block's bucket %d", calls, p.BucketLive(0), p.Bucket(blocks))
	}
	for _, r := range []*mem.BlockRef{&held[0], &again, &held[2]} {
		r.Release()
	}
	p.Close()
}
