// Package mem holds gpuagent's tier allocators (layer L2) and the handles
// they mint (layer L3): Arena for model-resident (T1) and engine-persistent
// (T2) memory, BlockPool and BlockRef for pooled fixed-size blocks (T3),
// ScratchStack for forward-pass scratch (T4), PinnedBuffer for
// engine-persistent pinned host memory (T5b) and Staging for transient host
// staging that must not survive load (T5a).
//
// Every allocator draws its memory from a backend.Backend and never talks to
// a driver. Each type's documentation says who frees and whether concurrent
// use is safe.
//
// # Memory management
//
// Go has no destructors, so every owner here is released explicitly, once:
// Arena.Close, BlockPool.Close, BlockRef.Release, ScratchStack.Close,
// Mark.Rewind, PinnedBuffer.Close, StagingBuffer.Release. Releasing twice
// panics with the object's name. Under the invariants build tag an owner
// that becomes unreachable unreleased is reported through runtime.AddCleanup.
//
// # Stable spans
//
// A StableSpan is a view of device memory whose address will not move for
// the life of the allocation it came from. Only the allocators in this
// package can mint one; a DeviceSpan (any address, possibly relocatable)
// cannot be converted into one. Functions that bake an address into a
// captured CUDA graph take a StableSpan.
package mem

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Errors returned when an allocator runs out or is misused recoverably.
var (
	ErrArenaFull = errors.New("mem: arena full")
	ErrPoolFull  = errors.New("mem: block pool exhausted")
	ErrStackFull = errors.New("mem: scratch stack exhausted")
	ErrMarkOrder = errors.New("mem: scratch mark rewound out of LIFO order")
)

// A DeviceSpan is a non-owning view of device memory that promises nothing
// about how long its address stays valid. Anyone may make one.
type DeviceSpan struct {
	Addr backend.Addr
	Len  backend.Bytes
}

// A StableSpan is a non-owning view of device memory whose address is
// stable for the life of the allocation it came from. It can only be
// obtained from an allocator in this package; there is no conversion from a
// DeviceSpan or a raw address. The zero StableSpan is the nil span.
//
// A StableSpan carries the generation of the arena it came from, so a span
// kept across Arena.Reset is detectable with Arena.Valid.
type StableSpan struct {
	addr backend.Addr
	n    backend.Bytes
	src  uint32 // allocator instance that minted it
	gen  uint32 // that allocator's generation when it was minted
}

// Addr returns the span's first address.
func (s StableSpan) Addr() backend.Addr { return s.addr }

// Len returns the span's length.
func (s StableSpan) Len() backend.Bytes { return s.n }

// IsNil reports whether s is the zero span.
func (s StableSpan) IsNil() bool { return s.addr == 0 }

// Device widens s to a DeviceSpan. The reverse is impossible by design.
func (s StableSpan) Device() DeviceSpan { return DeviceSpan{s.addr, s.n} }

// Slice returns the part of s from off of length n; it panics if that is
// not inside s. A part of a stable span is stable.
func (s StableSpan) Slice(off, n backend.Bytes) StableSpan {
	if off < 0 || n < 0 || off+n > s.n {
		panic(fmt.Sprintf("mem: Slice(%d, %d) of a %d-byte StableSpan", off, n, s.n))
	}
	s.addr += backend.Addr(off)
	s.n = n
	return s
}

func (s StableSpan) String() string {
	return fmt.Sprintf("StableSpan(%#x+%d)", uint64(s.addr), int64(s.n))
}

var allocatorIDs atomic.Uint32

func nextID() uint32 { return allocatorIDs.Add(1) }

// bump is the arithmetic shared by Arena and ScratchStack: take n bytes at
// alignment align from a region of capacity c whose next free offset is
// *off.
func bump(base backend.Addr, c backend.Bytes, off *backend.Bytes, n, align backend.Bytes) (backend.Addr, bool) {
	if align == 0 {
		align = 256
	}
	if !backend.IsPow2(align) || n < 0 {
		panic(fmt.Sprintf("mem: take of %d bytes at alignment %d", n, align))
	}
	start := backend.AlignUp(backend.Bytes(base)+*off, align) - backend.Bytes(base)
	if start+n > c {
		return 0, false
	}
	*off = start + n
	return base + backend.Addr(start), true
}
