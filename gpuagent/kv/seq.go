package kv

import (
	"fmt"
	"slices"

	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// A Sequence is one request's KV state: a positional table of global
// blocks and, for models with sliding-window layers, a positional table of
// SWA blocks. A slot whose reference is empty is a hole (StreamingLLM
// eviction keeps the table's length so positions stay aligned).
//
// The Sequence owns one reference per filled slot. It is closed exactly
// once, by Close, on every path: completion, cancellation, disconnect or
// error. It is not safe for concurrent use.
type Sequence struct {
	m      *Manager
	blocks []mem.BlockRef
	sealed []Hash // content hash per global slot, 0 if not sealed
	swa    []mem.BlockRef
	closed bool
	leak   *leak.Token
}

// NewSequence returns an empty sequence. The caller closes it.
func (m *Manager) NewSequence() *Sequence {
	s := &Sequence{m: m}
	m.open++
	s.leak = leak.Track(s, func() string { return "kv.Sequence" })
	return s
}

// Grow makes room for at least blocks more slots in the global table and
// in the SWA table, so that appending that many does not allocate. The
// agent grows a sequence at admission by the blocks it promised it,
// which keeps decode steps free of allocation.
func (s *Sequence) Grow(blocks int) {
	s.live("Grow")
	s.blocks = slices.Grow(s.blocks, blocks)
	s.sealed = slices.Grow(s.sealed, blocks)
	if s.m.cfg.SWA != nil {
		s.swa = slices.Grow(s.swa, blocks)
	}
}

func (s *Sequence) live(op string) {
	if s.closed {
		panic("kv: " + op + " on a closed Sequence")
	}
}

// Append adds a global block at the end of the table. If h is non-zero and
// the prefix cache holds h, the cached block is shared into the slot, which
// is sealed with h, and hit is true. Otherwise a fresh block is taken
// (reclaiming prefix-cache entries if the pool is full) and left unsealed;
// call Seal once its content is written. On failure nothing changes.
func (s *Sequence) Append(h Hash) (hit bool, err error) {
	s.live("Append")
	if e := s.m.cache.get(h); h != 0 && e != nil {
		s.m.cache.touch(e)
		r := e.ref.Share()
		s.push(&r, h)
		return true, nil
	}
	var r mem.BlockRef
	if err := s.m.acquire(&r); err != nil {
		return false, fmt.Errorf("kv: append block %d: %w", len(s.blocks), err)
	}
	s.push(&r, 0)
	return false, nil
}

func (s *Sequence) push(r *mem.BlockRef, h Hash) {
	if invariants.Enabled {
		s.m.cfg.Global.Check(r)
	}
	s.blocks = append(s.blocks, mem.BlockRef{})
	s.blocks[len(s.blocks)-1] = r.Move()
	s.sealed = append(s.sealed, h)
}

// Seal records that the block at pos holds the content with hash h, so
// that Close may hand it to the prefix cache. It panics on a hole.
func (s *Sequence) Seal(pos int, h Hash) {
	s.live("Seal")
	if s.blocks[pos].IsNil() || h == 0 {
		panic(fmt.Sprintf("kv: Seal(%d, %#x) of a hole or with no hash", pos, uint64(h)))
	}
	s.sealed[pos] = h
}

// AppendSWA adds a block from the SWA pool at the end of the SWA table.
// SWA blocks are never cached or shared, so nothing is reclaimed for them.
func (s *Sequence) AppendSWA() error {
	s.live("AppendSWA")
	r, err := s.m.cfg.SWA.Acquire()
	if err != nil {
		return fmt.Errorf("kv: append SWA block %d: %w", len(s.swa), err)
	}
	s.swa = append(s.swa, mem.BlockRef{})
	s.swa[len(s.swa)-1] = r.Move()
	return nil
}

// EvictMiddle drops the global blocks at positions [from, to), leaving
// holes; the table's length is unchanged.
func (s *Sequence) EvictMiddle(from, to int) {
	s.live("EvictMiddle")
	for i := from; i < to; i++ {
		dropSlot(&s.blocks[i])
		s.sealed[i] = 0
	}
}

// EvictSWA drops the SWA blocks at positions [from, to), leaving holes.
func (s *Sequence) EvictSWA(from, to int) {
	s.live("EvictSWA")
	for i := from; i < to; i++ {
		dropSlot(&s.swa[i])
	}
}

func dropSlot(r *mem.BlockRef) {
	if !r.IsNil() {
		r.Release()
	}
}

// Len returns the length of the global table, holes included.
func (s *Sequence) Len() int { return len(s.blocks) }

// SWALen returns the length of the SWA table, holes included.
func (s *Sequence) SWALen() int { return len(s.swa) }

// BlockTable appends the kernel-facing global table to dst: block ids,
// with -1 for holes.
func (s *Sequence) BlockTable(dst []int32) []int32 { return table(dst, s.blocks) }

// SWATable appends the kernel-facing SWA table to dst.
func (s *Sequence) SWATable(dst []int32) []int32 { return table(dst, s.swa) }

func table(dst []int32, refs []mem.BlockRef) []int32 {
	for i := range refs {
		id := int32(refs[i].ID())
		if id == 0 {
			id = -1
		}
		dst = append(dst, id)
	}
	return dst
}

// Close ends the sequence on every path. Each sealed block whose hash the
// prefix cache lacks moves its reference into the cache; every other
// reference is dropped. Closing twice panics.
func (s *Sequence) Close() {
	s.live("Close")
	s.closed = true
	s.m.open--
	s.leak.Done()
	for i := range s.blocks {
		if h := s.sealed[i]; h != 0 && s.m.cache.get(h) == nil {
			s.m.cache.put(h, &s.blocks[i])
			continue
		}
		dropSlot(&s.blocks[i])
	}
	for i := range s.swa {
		dropSlot(&s.swa[i])
	}
	s.blocks, s.sealed, s.swa = nil, nil, nil
}

// A Copy asks the engine to copy one block's content into another: what a
// fork could not share.
type Copy struct {
	SWA      bool // both blocks are in the SWA pool
	From, To mem.BlockID
}

// Fork returns a new sequence with the same tables as s. Every global block
// is shared, holes stay holes and seals carry over, except that when
// copyLast is true the last global slot gets a fresh block (the partly
// written block both sequences would otherwise write to). SWA blocks are
// never shared: each SWA slot gets a fresh block. The returned copies name
// the blocks whose content the engine must copy. On failure nothing
// changes and no sequence is returned. The caller closes the new sequence.
func (s *Sequence) Fork(copyLast bool) (*Sequence, []Copy, error) {
	s.live("Fork")
	c := s.m.NewSequence()
	copies, err := c.forkFrom(s, copyLast)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, copies, nil
}

func (c *Sequence) forkFrom(s *Sequence, copyLast bool) ([]Copy, error) {
	var copies []Copy
	last := len(s.blocks) - 1
	for i := range s.blocks {
		src := &s.blocks[i]
		switch {
		case src.IsNil():
			c.blocks = append(c.blocks, mem.BlockRef{})
			c.sealed = append(c.sealed, 0)
		case i == last && copyLast:
			var r mem.BlockRef
			if err := c.m.acquire(&r); err != nil {
				return nil, fmt.Errorf("kv: fork block %d: %w", i, err)
			}
			copies = append(copies, Copy{From: src.ID(), To: r.ID()})
			c.push(&r, 0)
		default:
			r := src.Share()
			c.push(&r, s.sealed[i])
		}
	}
	return c.forkSWA(s, copies)
}

func (c *Sequence) forkSWA(s *Sequence, copies []Copy) ([]Copy, error) {
	for i := range s.swa {
		if s.swa[i].IsNil() {
			c.swa = append(c.swa, mem.BlockRef{})
			continue
		}
		if err := c.AppendSWA(); err != nil {
			return nil, err
		}
		copies = append(copies, Copy{SWA: true, From: s.swa[i].ID(), To: c.swa[len(c.swa)-1].ID()})
	}
	return copies, nil
}

// LastID returns the id of the last global block, 0 for an empty table or
// a hole.
func (s *Sequence) LastID() mem.BlockID {
	if len(s.blocks) == 0 {
		return 0
	}
	return s.blocks[len(s.blocks)-1].ID()
}
