package mem

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// A ScratchStack is a LIFO allocator over one backend region for the
// scratch of one forward pass (T4). A pass opens a Mark on entry, takes
// from the stack, and rewinds the mark on exit (usually with defer). LIFO
// cannot fragment, and its high-water mark is the number a planner sizes
// the stack from.
//
// The stack owns its region; whoever opened it closes it. A ScratchStack is
// not safe for concurrent use: one forward pass at a time, callers
// serialize.
type ScratchStack struct {
	b      backend.Backend
	r      *backend.Region
	off    backend.Bytes
	hwm    backend.Bytes
	marks  []backend.Bytes // offset at each open mark
	id     uint32
	closed bool
	leak   *leak.Token
}

// A Mark records a stack position. Rewinding it frees everything taken
// since, and must happen in the reverse order of marking.
type Mark struct {
	s     *ScratchStack
	depth int
}

// NewScratchStack acquires capacity bytes tagged backend.TagScratch from b.
func NewScratchStack(b backend.Backend, capacity backend.Bytes) (*ScratchStack, error) {
	r, err := b.Acquire(capacity, 0, backend.TagScratch)
	if err != nil {
		return nil, fmt.Errorf("mem: open scratch stack: %w", err)
	}
	s := &ScratchStack{b: b, r: r, id: nextID(), marks: make([]backend.Bytes, 0, 16)}
	s.leak = leak.Track(s, s.String)
	return s, nil
}

func (s *ScratchStack) String() string {
	return fmt.Sprintf("scratch stack(capacity=%v)", s.r.Committed())
}

// Mark opens a mark at the current position.
func (s *ScratchStack) Mark() Mark {
	if s.closed {
		panic("mem: Mark on closed " + s.String())
	}
	s.marks = append(s.marks, s.off)
	return Mark{s: s, depth: len(s.marks)}
}

// Take returns n bytes aligned to align (a power of two; 0 means 256), or
// ErrStackFull.
func (s *ScratchStack) Take(n, align backend.Bytes) (StableSpan, error) {
	if s.closed {
		panic("mem: Take on closed " + s.String())
	}
	addr, ok := bump(s.r.Base(), s.r.Committed(), &s.off, n, align)
	if !ok {
		return StableSpan{}, ErrStackFull
	}
	s.hwm = max(s.hwm, s.off)
	return StableSpan{addr: addr, n: n, src: s.id}, nil
}

// Rewind frees everything taken since m and closes m. Rewinding any mark
// but the innermost open one returns ErrMarkOrder and changes nothing.
func (m Mark) Rewind() error {
	s := m.s
	if s == nil || m.depth != len(s.marks) || s.closed {
		return ErrMarkOrder
	}
	s.off = s.marks[m.depth-1]
	s.marks = s.marks[:m.depth-1]
	return nil
}

// Used returns the bytes in use, including padding.
func (s *ScratchStack) Used() backend.Bytes { return s.off }

// Depth returns the number of open marks.
func (s *ScratchStack) Depth() int { return len(s.marks) }

// HighWater returns the most bytes ever in use at once.
func (s *ScratchStack) HighWater() backend.Bytes { return s.hwm }

// Capacity returns the stack's size.
func (s *ScratchStack) Capacity() backend.Bytes { return s.r.Committed() }

// Close returns the stack's region. It panics if a mark is still open or
// the stack is already closed.
func (s *ScratchStack) Close() {
	if s.closed || len(s.marks) != 0 {
		panic(fmt.Sprintf("mem: Close of %v with %d open marks (closed=%v)", s, len(s.marks), s.closed))
	}
	s.closed = true
	s.leak.Done()
	s.b.Release(s.r)
}
