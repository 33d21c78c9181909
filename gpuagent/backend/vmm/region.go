package vmm

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// Acquire implements backend.Backend: it reserves n bytes rounded up to the
// granularity and commits them as one handle. The region cannot grow.
func (b *Backend) Acquire(n, align backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	if align != 0 && !backend.IsPow2(align) {
		return nil, fail("Acquire", n, tag, backend.ErrInvalidValue)
	}
	if err := b.led.Admit("Acquire", n, tag); err != nil {
		return nil, err
	}
	s, err := b.reserve(backend.AlignUp(n, b.g), align, tag)
	if err != nil {
		return nil, fail("Acquire", n, tag, err)
	}
	if err := b.grow(s, s.size); err != nil {
		b.d.AddressFree(s.va, uint64(s.size))
		return nil, fail("Acquire", n, tag, err)
	}
	r := b.minter.Mint(backend.RegionSpec{Base: backend.Addr(s.va), Reserved: s.size, Committed: n, Tag: tag})
	b.track(r, s)
	b.led.Acquired(tag, n, s.mapped, s.size)
	return r, nil
}

// AcquireGrowable implements backend.Backend: it reserves reserve bytes of
// address space and commits the first commit bytes.
func (b *Backend) AcquireGrowable(reserve, commit backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	if err := b.led.AdmitGrowable("AcquireGrowable", reserve, commit, tag); err != nil {
		return nil, err
	}
	s, err := b.reserve(reserve, 0, tag)
	if err != nil {
		return nil, fail("AcquireGrowable", reserve, tag, err)
	}
	if err := b.grow(s, commit); err != nil {
		b.d.AddressFree(s.va, uint64(s.size))
		return nil, fail("AcquireGrowable", commit, tag, err)
	}
	r := b.minter.Mint(backend.RegionSpec{Base: backend.Addr(s.va), Reserved: reserve, Committed: commit, Tag: tag, Growable: true})
	b.track(r, s)
	b.led.Acquired(tag, commit, s.mapped, s.size)
	return r, nil
}

func (b *Backend) reserve(size, align backend.Bytes, tag backend.Tag) (*space, error) {
	if align <= b.g {
		align = 0
	}
	va, err := b.d.AddressReserve(uint64(size), uint64(align))
	if err != nil {
		return nil, err
	}
	s := &space{va: va, size: size, prop: &b.prop}
	if tag.Shared() && b.shared != nil {
		s.prop = b.shared
	}
	return s, nil
}

func (b *Backend) track(r *backend.Region, s *space) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spaces[r] = s
}

// space returns r's space, panicking if r is not a live region of b.
func (b *Backend) space(r *backend.Region, op string) *space {
	b.minter.CheckLive(r, op)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spaces[r]
}

// grow maps [s.mapped, n) in handles of at most one chunk each. On failure
// it undoes what it mapped.
func (b *Backend) grow(s *space, n backend.Bytes) error {
	had := len(s.maps)
	for s.mapped < n {
		size := min(b.chunk, n-s.mapped)
		va := s.va + cuda.DevicePtr(s.mapped)
		h, err := b.d.Commit(va, uint64(size), *s.prop)
		if err != nil {
			b.shrink(s, len(s.maps)-had)
			return err
		}
		s.maps = append(s.maps, cuda.Mapping{VA: va, Size: uint64(size), H: h})
		s.mapped += size
	}
	return nil
}

// shrink fences, then unmaps and releases the top k mappings of s.
func (b *Backend) shrink(s *space, k int) error {
	if k == 0 {
		return nil
	}
	top := s.maps[len(s.maps)-k:]
	rev := make([]cuda.Mapping, k)
	for i, m := range top {
		rev[k-1-i] = m
	}
	n, err := b.d.Decommit(rev)
	for _, m := range rev[:n] {
		s.mapped -= backend.Bytes(m.Size)
	}
	s.maps = s.maps[:len(s.maps)-n]
	return err
}

// Release implements backend.Backend: it fences, unmaps and releases every
// handle of r and frees its address range. Releasing r twice panics with
// its tag.
func (b *Backend) Release(r *backend.Region) {
	s := b.space(r, "release")
	b.minter.Retire(r)
	b.mu.Lock()
	delete(b.spaces, r)
	b.mu.Unlock()
	b.led.Released(r.Tag(), r.Committed(), s.mapped, s.size)
	if err := b.shrink(s, len(s.maps)); err != nil {
		panic(fmt.Sprintf("vmm: release of %v: %v", r, err))
	}
	if err := b.d.AddressFree(s.va, uint64(s.size)); err != nil {
		panic(fmt.Sprintf("vmm: release of %v: %v", r, err))
	}
}
