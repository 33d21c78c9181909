package vmm

import (
	"slices"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// Commit implements backend.Backend: it grows r's committed prefix to n, a
// multiple of the granularity within the reservation, first from memory a
// Decommit kept mapped, then with new handles of at most one chunk each.
func (b *Backend) Commit(r *backend.Region, n backend.Bytes) error {
	s := b.space(r, "commit")
	switch {
	case !r.Growable():
		return fail("Commit", n, r.Tag(), backend.ErrNotGrowable)
	case n%b.g != 0 || n > r.Reserved() || n < r.Committed():
		return fail("Commit", n, r.Tag(), backend.ErrInvalidValue)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	was, mapped := r.Committed(), s.mapped
	if err := b.grow(s, n); err != nil {
		return fail("Commit", n, r.Tag(), err)
	}
	b.minter.SetCommitted(r, n)
	b.led.Resized(r.Tag(), n-was, s.mapped-mapped)
	return nil
}

// Decommit implements backend.Backend: it shrinks r's committed prefix to
// n, which must fall where one handle ends and the next begins. The freed
// handles stay mapped up to the hysteresis; the rest are released after a
// fence.
func (b *Backend) Decommit(r *backend.Region, n backend.Bytes) error {
	s := b.space(r, "decommit")
	if !r.Growable() {
		return fail("Decommit", n, r.Tag(), backend.ErrNotGrowable)
	}
	if n == r.Committed() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || n > r.Committed() || !s.boundary(n) {
		return fail("Decommit", n, r.Tag(), backend.ErrInvalidValue)
	}
	was, mapped := r.Committed(), s.mapped
	b.minter.SetCommitted(r, n)
	err := b.shrink(s, s.excess(n, b.keep))
	b.led.Resized(r.Tag(), n-was, s.mapped-mapped)
	if err != nil {
		return fail("Decommit", n, r.Tag(), err)
	}
	return nil
}

// Trim releases the memory r keeps mapped above its committed prefix.
func (b *Backend) Trim(r *backend.Region) error {
	s := b.space(r, "trim")
	b.mu.Lock()
	defer b.mu.Unlock()
	mapped := s.mapped
	err := b.shrink(s, s.excess(r.Committed(), 0))
	b.led.Resized(r.Tag(), 0, s.mapped-mapped)
	if err != nil {
		return fail("Trim", r.Committed(), r.Tag(), err)
	}
	return nil
}

// boundary reports whether offset n is where a mapping starts or the end
// of the mapped prefix.
func (s *space) boundary(n backend.Bytes) bool {
	return n == s.mapped || slices.ContainsFunc(s.maps, func(m cuda.Mapping) bool {
		return backend.Bytes(m.VA-s.va) == n
	})
}

// excess returns how many top mappings to release so that at most keep
// bytes stay mapped above the committed prefix n, never touching a mapping
// that holds committed bytes.
func (s *space) excess(n, keep backend.Bytes) int {
	k, mapped := 0, s.mapped
	for i := len(s.maps) - 1; i >= 0 && mapped-n > keep; i-- {
		m := s.maps[i]
		if backend.Bytes(m.VA-s.va) < n {
			break
		}
		mapped -= backend.Bytes(m.Size)
		k++
	}
	return k
}
