package agent

import (
	"errors"
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/mem"
	"github.com/vramplan/vramplan/planner"
)

// A kvPool is one KV pool: a growable region reserved for every block of
// the plan, block-major (block i at base + (i-1)*stride), and the id space
// that hands the blocks out. The id space's free list is LIFO and starts
// with block 1, so the highest id ever handed out equals the most blocks
// ever live at once: committing the region up to (live + needed) × stride
// before an operation covers every block it can take.
//
// The agent owns it and closes it; not safe for concurrent use.
type kvPool struct {
	r       *backend.Region
	ids     *mem.BlockPool
	stride  backend.Bytes
	chunk   backend.Bytes
	credits int64 // blocks promised to open sequences
	commits uint64
	decom   uint64
}

// openPool reserves the pool's region — the plan's charge for it, or the
// blocks' extent if that is larger, rounded to the backend's granularity —
// and commits what first blocks need. On a backend that cannot grow (plain
// device allocations) it commits the whole reservation at once, so the
// pool never needs to grow while serving.
func openPool(b backend.Backend, it planner.Item, blocks int64, stride, chunk backend.Bytes, first int64, tag backend.Tag, compact bool) (*kvPool, error) {
	g := b.Stats().Granularity
	chunk = backend.AlignUp(max(chunk, g), g)
	reserve := backend.AlignUp(max(backend.Bytes(it.Bytes), backend.Bytes(blocks)*stride), g)
	commit := min(reserve, backend.AlignUp(backend.Bytes(min(first, blocks))*stride, chunk))
	r, err := b.AcquireGrowable(reserve, commit, tag)
	if errors.Is(err, backend.ErrNotGrowable) {
		r, err = b.Acquire(reserve, 0, tag)
	}
	if err != nil {
		return nil, err
	}
	p := &kvPool{r: r, stride: stride, chunk: chunk}
	if compact {
		n := int(ceilDiv(int64(reserve), int64(chunk)))
		p.ids = mem.NewCompactIDSpace(int(blocks), tag, n, p.chunkOf)
	} else {
		p.ids = mem.NewBlockIDSpace(int(blocks), tag)
	}
	p.commits = 1
	return p, nil
}

// chunkOf returns the chunk holding the last byte of block id: the pool
// can decommit down to a chunk's start only when every block of that
// chunk and above is free.
func (p *kvPool) chunkOf(id mem.BlockID) int {
	return int((backend.Bytes(id)*p.stride - 1) / p.chunk)
}

func (p *kvPool) idsOrNil() *mem.BlockPool {
	if p == nil {
		return nil
	}
	return p.ids
}

// ensure commits chunks until blocks blocks are backed, and returns the
// committed bytes before and after. It fails, changing nothing, when the
// backend cannot commit.
func (p *kvPool) ensure(b backend.Backend, blocks int64) (from, to backend.Bytes, err error) {
	from = p.r.Committed()
	need := backend.Bytes(min(blocks, int64(p.ids.Blocks()))) * p.stride
	if need <= from {
		return from, from, nil
	}
	n := min(p.r.Reserved(), backend.AlignUp(need, p.chunk))
	if err := b.Commit(p.r, n); err != nil {
		return from, from, err
	}
	p.commits++
	return from, n, nil
}

// backed panics under invariants if block id lies beyond limit, the
// usable part of the commit.
func (p *kvPool) backed(id mem.BlockID, limit backend.Bytes) {
	if invariants.Enabled && backend.Bytes(id)*p.stride > limit {
		panic(fmt.Sprintf("agent: block %d of the %v handed out beyond the usable commit (%v of %v)", id, p.ids, limit, p.r.Committed()))
	}
}

// available is how many more blocks the pool can promise.
func (p *kvPool) available(pinned int64) int64 { return int64(p.ids.Blocks()) - p.credits - pinned }

func (p *kvPool) close(b backend.Backend) {
	if p == nil {
		return
	}
	if p.ids != nil {
		p.ids.Close()
	}
	if p.r != nil {
		b.Release(p.r)
	}
}

// HostBytesPerBlock is the host memory the agent keeps for each block of
// its KV pools, whatever the backend: the id space's free list, reference
// count and generation, and the chunk a block lies in (4 bytes each).
const HostBytesPerBlock backend.Bytes = 16

// HostMetadata returns the host memory p's KV pools take for their block
// metadata: 8 GiB for a plan of 2^29 blocks.
func HostMetadata(p *planner.Plan) backend.Bytes {
	n := p.KV.Blocks + 1
	if p.KV.SWA != nil {
		n += p.KV.SWA.Blocks + 1
	}
	return backend.Bytes(n) * HostBytesPerBlock
}
