package mem

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// A BlockID names one block of a BlockPool. Zero is the nil block; real
// ids run from 1 to the pool's size.
type BlockID uint32

// A BlockPool hands out fixed-size blocks (T3) by id, with a reference
// count per block. The stride is chosen at run time. A pool either spans one
// backend region (block i lives at base + (i-1)*stride) or is an id space
// only, for callers that keep their own layout (the KV cache's layer-major
// layout).
//
// The pool owns the memory and the free list; holders own references, as
// BlockRefs. A block returns to the free list when its last reference is
// released, and there is no other way to free one. A pool tagged
// backend.TagSWAPool holds sliding-window blocks, which are never shared:
// BlockRef.Share on one panics.
//
// A BlockPool is not safe for concurrent use: it is driven by one scheduler
// goroutine, and callers serialize. Whoever made the pool closes it, after
// every reference has been released.
type BlockPool struct {
	b      backend.Backend
	r      *backend.Region // nil for an id space
	tag    backend.Tag
	stride backend.Bytes
	free   []BlockID // LIFO free list of released ids, all below next
	next   BlockID   // the lowest id never handed out: it and those above are free
	refs   []uint32  // refcount per id; index 0 unused
	gens   []uint32  // generation per id, advanced when the block is freed
	nrefs  int       // outstanding references
	closed bool
	lowest *buckets // non-nil: free is a min-heap and live blocks are counted per bucket
	leak   *leak.Token
}

// NewBlockPool acquires blocks*stride bytes under tag from b and returns a
// pool of blocks blocks over them.
func NewBlockPool(b backend.Backend, blocks int, stride backend.Bytes, tag backend.Tag) (*BlockPool, error) {
	if blocks <= 0 || stride <= 0 {
		panic(fmt.Sprintf("mem: NewBlockPool(%d blocks, stride %d)", blocks, stride))
	}
	r, err := b.Acquire(backend.Bytes(blocks)*stride, 0, tag)
	if err != nil {
		return nil, fmt.Errorf("mem: open %v block pool: %w", tag, err)
	}
	p := newPool(blocks, tag)
	p.b, p.r, p.stride = b, r, stride
	return p, nil
}

// NewBlockIDSpace returns a pool of blocks ids with no memory behind them.
func NewBlockIDSpace(blocks int, tag backend.Tag) *BlockPool {
	if blocks <= 0 {
		panic(fmt.Sprintf("mem: NewBlockIDSpace(%d)", blocks))
	}
	return newPool(blocks, tag)
}

// newPool makes a pool whose ids are all free. Ids are handed out from
// the frontier (next) while none released waits, so making a pool costs no
// work per block (filling a free list of 2048 ids was most of making the
// agent's KV pools, a quarter of a FuzzAgent execution); the free list has
// room for every block, so releasing never allocates.
func newPool(blocks int, tag backend.Tag) *BlockPool {
	p := &BlockPool{tag: tag, next: 1, free: make([]BlockID, 0, blocks), refs: make([]uint32, blocks+1), gens: make([]uint32, blocks+1)}
	p.leak = leak.Track(p, p.String)
	return p
}

func (p *BlockPool) String() string {
	return fmt.Sprintf("%v block pool(%d blocks)", p.tag, len(p.refs)-1)
}

// Acquire takes a free block and returns the only reference to it, or
// ErrPoolFull.
func (p *BlockPool) Acquire() (BlockRef, error) {
	if p.closed {
		panic("mem: Acquire from closed " + p.String())
	}
	var id BlockID
	switch n := len(p.free); {
	case n > 0 && p.lowest != nil:
		id = p.popLowest()
	case n > 0:
		id = p.free[n-1]
		p.free = p.free[:n-1]
	case int(p.next) < len(p.refs):
		id = p.advance()
	default:
		return BlockRef{}, ErrPoolFull
	}
	p.refs[id] = 1
	p.nrefs++
	return BlockRef{p: p, id: id, gen: p.gens[id]}, nil
}

// check panics unless r is a live reference into p.
func (p *BlockPool) check(r *BlockRef, op string) {
	switch {
	case r.p == nil:
		panic(fmt.Sprintf("mem: %s of a nil BlockRef", op))
	case r.p != p:
		panic(fmt.Sprintf("mem: %s of a BlockRef of the %v in the %v", op, r.p, p))
	case r.gen != p.gens[r.id] || p.refs[r.id] == 0:
		panic(fmt.Sprintf("mem: %s of a stale BlockRef to block %d of the %v (released twice, or released through a copy)", op, r.id, p))
	}
}

// Check panics unless r is a live reference into p. Holders that keep
// references of one pool call it to refuse references of another.
func (p *BlockPool) Check(r *BlockRef) { p.check(r, "Check") }

func (p *BlockPool) release(id BlockID) {
	p.nrefs--
	if p.refs[id]--; p.refs[id] > 0 {
		return
	}
	p.gens[id]++
	if p.lowest != nil {
		p.pushLowest(id)
		return
	}
	p.free = append(p.free, id)
}

// Blocks returns the number of blocks in the pool.
func (p *BlockPool) Blocks() int { return len(p.refs) - 1 }

// Free returns the number of free blocks.
func (p *BlockPool) Free() int { return len(p.free) + len(p.refs) - int(p.next) }

// Live returns the number of blocks with at least one reference. Free() +
// Live() == Blocks() always.
func (p *BlockPool) Live() int { return p.Blocks() - p.Free() }

// advance hands out the frontier's id.
func (p *BlockPool) advance() BlockID {
	id := p.next
	p.next++
	if p.lowest != nil {
		p.lowest.enter(id)
	}
	return id
}

// References returns the number of outstanding references.
func (p *BlockPool) References() int { return p.nrefs }

// RefCount returns the reference count of block id.
func (p *BlockPool) RefCount(id BlockID) int { return int(p.refs[id]) }

// Stride returns the size of one block (0 for an id space).
func (p *BlockPool) Stride() backend.Bytes { return p.stride }

// Tag returns the pool's tag.
func (p *BlockPool) Tag() backend.Tag { return p.tag }

// Shareable reports whether references into p may be shared; SWA pools'
// may not.
func (p *BlockPool) Shareable() bool { return p.tag != backend.TagSWAPool }

// Close returns the pool's region, if it has one. It panics if any
// reference is still live, or if the pool is already closed.
func (p *BlockPool) Close() {
	if p.closed || p.nrefs != 0 {
		panic(fmt.Sprintf("mem: Close of %v with %d live references (closed=%v)", p, p.nrefs, p.closed))
	}
	p.closed = true
	p.leak.Done()
	if p.r != nil {
		p.b.Release(p.r)
	}
}

// noCopy makes `go vet` (copylocks) report copies of a BlockRef.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// A BlockRef is one reference to one block of a BlockPool: the Go form of a
// move-only handle. It is released exactly once, with Release; a second
// reference exists only through an explicit Share; ownership moves with
// Move, which leaves the source empty. The zero BlockRef is empty.
//
// go vet reports a BlockRef copied by assignment or passed by value; the
// pool detects a release through a stale copy once the block has been
// freed. A BlockRef is not safe for concurrent use.
type BlockRef struct {
	_   noCopy
	p   *BlockPool
	id  BlockID
	gen uint32
}

// ID returns the referenced block, or 0 for an empty reference.
func (r *BlockRef) ID() BlockID { return r.id }

// Pool returns the pool the block belongs to, or nil.
func (r *BlockRef) Pool() *BlockPool { return r.p }

// IsNil reports whether r is empty.
func (r *BlockRef) IsNil() bool { return r.p == nil }

// Release drops the reference and empties r. It panics if r is empty or
// stale.
func (r *BlockRef) Release() {
	r.p.check(r, "Release")
	r.p.release(r.id)
	*r = BlockRef{}
}

// Share returns a new reference to the same block. It panics on a block of
// an SWA pool: sliding-window blocks are never shared.
func (r *BlockRef) Share() BlockRef {
	r.p.check(r, "Share")
	if !r.p.Shareable() {
		panic(fmt.Sprintf("mem: Share of block %d of the %v: SWA blocks are never shared", r.id, r.p))
	}
	r.p.refs[r.id]++
	r.p.nrefs++
	return BlockRef{p: r.p, id: r.id, gen: r.gen}
}

// Move returns the reference and leaves r empty.
func (r *BlockRef) Move() BlockRef {
	p, id, gen := r.p, r.id, r.gen
	*r = BlockRef{}
	return BlockRef{p: p, id: id, gen: gen}
}

// Span returns the block's memory. It panics for an id-space pool.
func (r *BlockRef) Span() StableSpan {
	r.p.check(r, "Span")
	if r.p.r == nil {
		panic("mem: Span of a block of an id-space " + r.p.String())
	}
	at := r.p.r.Base() + backend.Addr(backend.Bytes(r.id-1)*r.p.stride)
	return StableSpan{addr: at, n: r.p.stride, src: 0, gen: 0}
}
