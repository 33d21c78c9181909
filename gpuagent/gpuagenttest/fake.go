// Package gpuagenttest provides a fake backend and the conformance suite
// every gpuagent backend must pass. The fake (A6 of the memory
// architecture) runs every allocator and all the refcount logic on CPU: it
// hands out real host memory at stable fake device addresses, journals every
// operation, poisons memory on release, can be told to fail the n-th
// acquisition or commit, and answers as the CUDA driver does.
package gpuagenttest

import (
	"fmt"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Config configures a Fake. Its zero value is a 1 GiB device with the H200's
// 2 MiB granularity, a 16-entry quarantine and no phase guard.
type Config struct {
	Capacity    backend.Bytes       `json:"capacity"`    // device total; 0 means 1 GiB
	Granularity backend.Bytes       `json:"granularity"` // VMM granularity; 0 means 2 MiB
	Quarantine  int                 `json:"quarantine"`  // released blocks kept readable; 0 means 16, <0 none
	Budget      backend.Bytes       `json:"budget"`      // committed-bytes cap; 0 means none
	Guard       *backend.PhaseGuard `json:"-"`           // consulted on every acquisition; may be nil
	// Chunk is the largest handle one Commit creates, as the VMM
	// backend's chunks; 0 means one handle per Commit, however large.
	Chunk backend.Bytes `json:"chunk"`
	// Export creates the handles of regions under a shared tag exportable
	// (the VMM backend's ExportPOSIXFD), so the Fake is a backend.Sharer
	// whose memory another process can map (Linux only).
	Export bool `json:"export"`
}

// Op is a journaled operation.
type Op uint8

// Journaled operations.
const (
	OpAcquire Op = iota + 1
	OpRelease
	OpCommit
	OpDecommit
)

func (o Op) String() string {
	return [...]string{"?", "acquire", "release", "commit", "decommit"}[o%5]
}

// An Entry is one journaled operation. Bytes is the change in committed
// bytes: positive for acquire and commit, negative for release and decommit.
type Entry struct {
	Seq   uint64
	Phase backend.Phase
	Tag   backend.Tag
	Bytes backend.Bytes
	Op    Op
	Base  backend.Addr
}

func (e Entry) String() string {
	return fmt.Sprintf("#%d %v %v tag=%v %+d", e.Seq, e.Phase, e.Op, e.Tag, int64(e.Bytes))
}

type chunk struct {
	off, size backend.Bytes
	h         uint64
}

type live struct {
	r      *backend.Region
	base   backend.Addr // recorded at acquisition; must never change
	chunks []chunk      // growable regions only
}

// A Fake is a Backend over a fake Device. It is safe for concurrent use.
type Fake struct {
	dev      *Device
	cfg      Config
	minter   *backend.Minter
	mu       sync.Mutex
	journal  []Entry
	live     map[*backend.Region]*live
	attempts uint64 // acquisitions attempted, for FailAcquire
	commits  uint64 // commits attempted, for FailCommit
	acquires uint64 // successful acquisitions
	releases uint64
	failAcq  uint64 // fail the attempt whose ordinal is failAcq (1-based)
	failCom  uint64
}

var _ backend.Backend = (*Fake)(nil)

// New returns a Fake configured by cfg.
func New(cfg Config) *Fake {
	cfg.Capacity = cmpOr(cfg.Capacity, backend.GiB)
	cfg.Granularity = cmpOr(cfg.Granularity, 2*backend.MiB)
	cfg.Quarantine = max(cmpOr(cfg.Quarantine, 16), 0)
	return &Fake{
		dev: NewDevice(cfg.Capacity, cfg.Granularity, cfg.Quarantine), cfg: cfg,
		minter: backend.NewMinter("gpuagenttest.Fake"), live: map[*backend.Region]*live{},
	}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Device returns the fake device under f, for reading memory back.
func (f *Fake) Device() *Device { return f.dev }

// FailAcquire makes the n-th acquisition from now (1 is the next) fail with
// ErrInjected. n <= 0 cancels a pending injection.
func (f *Fake) FailAcquire(n int) { f.arm(&f.failAcq, &f.attempts, n) }

// FailCommit makes the n-th Commit from now fail with ErrInjected.
func (f *Fake) FailCommit(n int) { f.arm(&f.failCom, &f.commits, n) }

func (f *Fake) arm(at, count *uint64, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*at = 0
	if n > 0 {
		*at = *count + uint64(n)
	}
}

// Journal returns a copy of every journaled operation, oldest first.
func (f *Fake) Journal() []Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Entry(nil), f.journal...)
}

func (f *Fake) record(op Op, r *backend.Region, n backend.Bytes) {
	var ph backend.Phase
	if f.cfg.Guard != nil {
		ph = f.cfg.Guard.Phase()
	}
	f.journal = append(f.journal, Entry{uint64(len(f.journal) + 1), ph, r.Tag(), n, op, r.Base()})
}

// admit runs the checks every acquisition shares: tag, phase guard,
// injected failure and budget. f.mu must be held.
func (f *Fake) admit(op string, n backend.Bytes, tag backend.Tag) error {
	if !tag.Valid() {
		return &backend.Error{Op: op, Bytes: n, Tag: tag, Err: backend.ErrInvalidValue}
	}
	f.cfg.Guard.Observe(tag, n)
	f.attempts++
	if f.attempts == f.failAcq {
		return &backend.Error{Op: op, Bytes: n, Tag: tag, Err: backend.ErrInjected}
	}
	return f.checkBudget(op, n, tag)
}

func (f *Fake) checkBudget(op string, n backend.Bytes, tag backend.Tag) error {
	if f.cfg.Budget > 0 && f.dev.Used()+n > f.cfg.Budget && n <= f.dev.Total() {
		return &backend.Error{Op: op, Bytes: n, Tag: tag, Err: backend.ErrBudget}
	}
	return nil
}

func tagged(err error, tag backend.Tag) error {
	if e, ok := err.(*backend.Error); ok {
		e.Tag = tag
	}
	return err
}

// Acquire implements backend.Backend with cuMemAlloc semantics.
func (f *Fake) Acquire(n, align backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if align != 0 && !backend.IsPow2(align) {
		return nil, &backend.Error{Op: "Acquire", Bytes: n, Tag: tag, Err: backend.ErrInvalidValue}
	}
	if err := f.admit("Acquire", n, tag); err != nil {
		return nil, err
	}
	va, err := f.dev.MemAlloc(n, align)
	if err != nil {
		return nil, tagged(err, tag)
	}
	r := f.minter.Mint(backend.RegionSpec{Base: va, Reserved: n, Committed: n, Tag: tag})
	f.live[r] = &live{r: r, base: va}
	f.acquires++
	f.record(OpAcquire, r, n)
	return r, nil
}
