package mem

import (
	"fmt"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// A PinnedBuffer is engine-persistent pinned host memory (T5b), acquired
// through a Backend under backend.TagPinned so that it is planned, counted
// and phase-guarded like device memory. On failure NewPinnedBuffer returns
// nil and the error, so a caller can degrade to an unpinned path.
//
// The PinnedBuffer owns its region; whoever made it closes it, once. It is
// not safe for concurrent use.
type PinnedBuffer struct {
	b    backend.Backend
	r    *backend.Region
	leak *leak.Token
}

// NewPinnedBuffer acquires n bytes of pinned host memory from b.
func NewPinnedBuffer(b backend.Backend, n backend.Bytes) (*PinnedBuffer, error) {
	r, err := b.Acquire(n, 0, backend.TagPinned)
	if err != nil {
		return nil, fmt.Errorf("mem: pinned buffer: %w", err)
	}
	p := &PinnedBuffer{b: b, r: r}
	p.leak = leak.Track(p, func() string { return "PinnedBuffer " + r.String() })
	return p, nil
}

// Addr returns the buffer's address.
func (p *PinnedBuffer) Addr() backend.Addr { return p.r.Base() }

// Len returns the buffer's size.
func (p *PinnedBuffer) Len() backend.Bytes { return p.r.Committed() }

// Close releases the buffer. Closing twice panics.
func (p *PinnedBuffer) Close() {
	if p.r.Released() {
		panic("mem: double close of PinnedBuffer " + p.r.String())
	}
	p.leak.Done()
	p.b.Release(p.r)
}

// Staging tracks transient host staging buffers (T5a): ordinary Go memory
// used only while loading. It registers a check with a PhaseGuard so that
// entering PhaseServing fails (panics under the invariants build tag) while
// any of its buffers is live.
//
// Staging is safe for concurrent use.
type Staging struct {
	mu    sync.Mutex
	live  int
	bytes backend.Bytes
}

// NewStaging returns a Staging whose buffers must all be released before g
// enters PhaseServing.
func NewStaging(g *backend.PhaseGuard) *Staging {
	s := new(Staging)
	g.AddServingCheck("T5a staging", s.checkGone)
	return s
}

func (s *Staging) checkGone() error {
	if n, b := s.Live(); n > 0 {
		return fmt.Errorf("%d transient staging buffers (%v) still live", n, b)
	}
	return nil
}

// Live returns the number and size of live staging buffers.
func (s *Staging) Live() (int, backend.Bytes) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live, s.bytes
}

// Get returns a staging buffer of n bytes. The caller releases it.
func (s *Staging) Get(n int) *StagingBuffer {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live++
	s.bytes += backend.Bytes(n)
	b := &StagingBuffer{s: s, buf: make([]byte, n)}
	b.leak = leak.Track(b, func() string { return fmt.Sprintf("staging buffer of %d bytes", n) })
	return b
}

// A StagingBuffer is one transient host buffer. Its owner releases it once;
// the bytes must not be used afterwards (under the invariants build tag they
// are poisoned).
type StagingBuffer struct {
	s    *Staging
	buf  []byte
	leak *leak.Token
}

// Bytes returns the buffer's memory.
func (b *StagingBuffer) Bytes() []byte { return b.buf }

// Release returns the buffer. Releasing twice panics.
func (b *StagingBuffer) Release() {
	if b.s == nil {
		panic("mem: double release of a staging buffer")
	}
	b.s.mu.Lock()
	b.s.live--
	b.s.bytes -= backend.Bytes(len(b.buf))
	b.s.mu.Unlock()
	if invariants.Enabled {
		for i := range b.buf {
			b.buf[i] = 0xDE
		}
	}
	b.s = nil
	b.leak.Done()
}
