package backend

import (
	"fmt"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/internal/leak"
)

// A Region is a range of device address space acquired from a Backend: the
// only gpuagent type that holds an address obtained from a driver. Its
// reserved size is fixed; its committed prefix changes only through the
// Backend's Commit and Decommit.
//
// A Region is owned by its acquirer and released exactly once through the
// Backend that minted it; a second release panics with the region's tag.
// Its accessors are safe for concurrent use.
type Region struct {
	minter    *Minter
	base      Addr
	reserved  Bytes
	committed atomic.Int64
	tag       Tag
	growable  bool
	released  atomic.Bool
	handle    uint64
	leak      *leak.Token
}

// Base returns the region's base address. It never changes.
func (r *Region) Base() Addr { return r.base }

// Reserved returns the size of the region's address range.
func (r *Region) Reserved() Bytes { return r.reserved }

// Committed returns the number of usable bytes from the base.
func (r *Region) Committed() Bytes { return Bytes(r.committed.Load()) }

// Tag returns the tag the region was acquired under.
func (r *Region) Tag() Tag { return r.tag }

// Growable reports whether the region came from AcquireGrowable.
func (r *Region) Growable() bool { return r.growable }

// Released reports whether the region has been released.
func (r *Region) Released() bool { return r.released.Load() }

// String describes the region for panics and logs.
func (r *Region) String() string {
	return fmt.Sprintf("region(tag=%v base=%#x committed=%v reserved=%v)", r.tag, uint64(r.base), r.Committed(), r.reserved)
}

// A Minter creates and retires the Regions of one Backend implementation.
// It exists so that code outside this package can implement Backend while
// only that implementation can change its own regions: a Region minted by
// one Minter cannot be retired or resized by another.
//
// A Minter is safe for concurrent use.
type Minter struct {
	name string
}

// NewMinter returns a Minter for the backend called name.
func NewMinter(name string) *Minter { return &Minter{name: name} }

// RegionSpec describes a region to mint.
type RegionSpec struct {
	Base      Addr
	Reserved  Bytes
	Committed Bytes
	Tag       Tag
	Growable  bool
	Handle    uint64 // backend-private handle, returned by Minter.Handle
}

// Mint returns a new live Region.
func (m *Minter) Mint(s RegionSpec) *Region {
	r := &Region{minter: m, base: s.Base, reserved: s.Reserved, tag: s.Tag, growable: s.Growable, handle: s.Handle}
	r.committed.Store(int64(s.Committed))
	r.leak = leak.Track(r, func() string { return fmt.Sprintf("%s %v", m.name, r) })
	return r
}

// Retire marks r released. It panics, naming the region's tag, if r was
// already released or was minted by another Minter.
func (m *Minter) Retire(r *Region) {
	m.check(r, "release")
	if r.released.Swap(true) {
		panic(fmt.Sprintf("%s: double release of %v", m.name, r))
	}
	r.leak.Done()
}

// SetCommitted records that r now has n committed bytes.
func (m *Minter) SetCommitted(r *Region, n Bytes) {
	m.check(r, "resize")
	r.committed.Store(int64(n))
}

// Handle returns the backend-private handle r was minted with.
func (m *Minter) Handle(r *Region) uint64 {
	m.check(r, "use")
	return r.handle
}

func (m *Minter) check(r *Region, op string) {
	if r == nil {
		panic(fmt.Sprintf("%s: %s of nil region", m.name, op))
	}
	if r.minter != m {
		panic(fmt.Sprintf("%s: %s of %v minted by %s", m.name, op, r, r.minter.name))
	}
}

// CheckLive panics, naming the region's tag, if r is nil or released. It is
// what a backend calls before touching a region passed in by a caller.
func (m *Minter) CheckLive(r *Region, op string) {
	m.check(r, op)
	if r.released.Load() {
		panic(fmt.Sprintf("%s: %s of released %v", m.name, op, r))
	}
}
