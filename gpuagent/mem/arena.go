package mem

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// An Arena is a bump allocator over one backend region, for model-resident
// (T1) and engine-persistent (T2) memory. Nothing taken from it is freed
// individually: Reset frees everything at once and starts a new generation,
// and Close returns the region. Keep T1 and T2 in separate arenas so that a
// model swap can Reset the first and keep the second.
//
// The Arena owns its region; whoever opened the Arena closes it. An Arena
// is not safe for concurrent use: callers serialize (it is used during load
// and planning, from one goroutine).
type Arena struct {
	b      backend.Backend
	r      *backend.Region
	off    backend.Bytes
	hwm    backend.Bytes
	id     uint32
	gen    uint32
	closed bool
	leak   *leak.Token
}

// NewArena acquires capacity bytes under tag from b and returns an arena
// over them.
func NewArena(b backend.Backend, capacity backend.Bytes, tag backend.Tag) (*Arena, error) {
	r, err := b.Acquire(capacity, 0, tag)
	if err != nil {
		return nil, fmt.Errorf("mem: open arena: %w", err)
	}
	a := &Arena{b: b, r: r, id: nextID(), gen: 1}
	a.leak = leak.Track(a, a.String)
	return a, nil
}

func (a *Arena) String() string {
	return fmt.Sprintf("arena(tag=%v capacity=%v)", a.r.Tag(), a.r.Committed())
}

func (a *Arena) live() {
	if a.closed {
		panic("mem: use of closed " + a.String())
	}
}

// Take returns n bytes aligned to align (a power of two; 0 means 256). It
// returns ErrArenaFull if the arena cannot hold them.
func (a *Arena) Take(n, align backend.Bytes) (StableSpan, error) {
	a.live()
	addr, ok := bump(a.r.Base(), a.r.Committed(), &a.off, n, align)
	if !ok {
		return StableSpan{}, ErrArenaFull
	}
	a.hwm = max(a.hwm, a.off)
	return StableSpan{addr: addr, n: n, src: a.id, gen: a.gen}, nil
}

// Reset frees everything taken from the arena and starts a new generation;
// spans taken before are no longer Valid.
func (a *Arena) Reset() {
	a.live()
	a.off = 0
	a.gen++
}

// Valid reports whether s was taken from this arena in its current
// generation.
func (a *Arena) Valid(s StableSpan) bool { return s.src == a.id && s.gen == a.gen && !a.closed }

// Generation returns the arena's generation, which Reset advances.
func (a *Arena) Generation() uint32 { return a.gen }

// Used returns the bytes taken since the last Reset, including padding.
func (a *Arena) Used() backend.Bytes { return a.off }

// Capacity returns the arena's size.
func (a *Arena) Capacity() backend.Bytes { return a.r.Committed() }

// HighWater returns the most bytes ever in use at once.
func (a *Arena) HighWater() backend.Bytes { return a.hwm }

// Tag returns the tag of the arena's region.
func (a *Arena) Tag() backend.Tag { return a.r.Tag() }

// Close returns the arena's region to its backend. Closing twice panics.
func (a *Arena) Close() {
	if a.closed {
		panic("mem: double close of " + a.String())
	}
	a.closed = true
	a.leak.Done()
	a.b.Release(a.r)
}
