// Package backend is the only seam through which gpuagent acquires physical
// memory (layer L1 of the memory architecture). A Backend hands out Regions;
// the tier allocators in package mem sit on top of it and nothing above them
// talks to a driver. Backends for real devices live in subpackages
// (backend/cudamalloc, backend/vmm); the fake used on CPU lives in
// gpuagent/gpuagenttest.
//
// # Ownership
//
// A Region is owned by whoever acquired it and is released exactly once, by
// passing it back to the Backend that minted it. Releasing it twice panics
// with the region's tag. Go has no destructors: callers release explicitly,
// usually with defer, and under the invariants build tag a Region that
// becomes unreachable while still live is reported as a leak.
//
// # Phases
//
// Acquisitions consult a PhaseGuard. Acquiring while Serving is counted per
// tag (see PhaseGuard.SteadyStateAllocations) and, under the invariants build
// tag, panics with the tag and the stack.
package backend

// A Backend acquires and releases physical memory. Failures are returned as
// errors that wrap one of the sentinel errors of this package (ErrOutOfMemory,
// ErrInvalidValue, ...), never as panics; misuse of a Region (double release,
// a Region from another Backend) panics.
//
// Implementations must be safe for concurrent use by multiple goroutines.
type Backend interface {
	// Acquire returns a region of exactly bytes committed bytes whose base
	// is aligned to align (a power of two; 0 means the backend's default).
	Acquire(bytes, align Bytes, tag Tag) (*Region, error)

	// AcquireGrowable reserves reserve bytes of address space and commits
	// the first commit bytes of it. The base address never changes while
	// the region lives. Backends that cannot grow return ErrNotGrowable.
	AcquireGrowable(reserve, commit Bytes, tag Tag) (*Region, error)

	// Release returns r to the backend. r must not be used afterwards.
	Release(r *Region)

	// Commit grows r's committed prefix to newBytes.
	Commit(r *Region, newBytes Bytes) error

	// Decommit shrinks r's committed prefix to newBytes. newBytes must fall
	// on a boundary between earlier commits.
	Decommit(r *Region, newBytes Bytes) error

	// Stats returns a snapshot of the backend's accounting.
	Stats() Stats
}

// Addr is a device virtual address. Zero is the nil address.
type Addr uint64

// Stats is a snapshot of a Backend's accounting.
type Stats struct {
	Total       Bytes         // device capacity the backend may use
	Free        Bytes         // Total minus committed bytes
	Granularity Bytes         // commit granularity of growable regions
	Committed   Bytes         // bytes committed in live regions
	Reserved    Bytes         // address space reserved by live regions
	Live        int           // live regions
	Acquires    uint64        // successful Acquire and AcquireGrowable calls
	Releases    uint64        // Release calls
	ByTag       map[Tag]Bytes // committed bytes per tag; tags with none are absent
}
