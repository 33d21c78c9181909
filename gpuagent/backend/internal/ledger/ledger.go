// Package ledger keeps the accounting the real-device backends share: what
// each acquisition must pass (a valid tag, the phase guard, a size the
// device could ever hold) and the counters behind backend.Stats.
package ledger

import (
	"maps"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// A Ledger counts one backend's regions and bytes. Its zero value is not
// usable; set Total and Granularity. It is safe for concurrent use.
type Ledger struct {
	Total       backend.Bytes       // device capacity
	Granularity backend.Bytes       // commit granularity reported in Stats
	Guard       *backend.PhaseGuard // consulted on every acquisition; may be nil

	mu        sync.Mutex
	committed backend.Bytes
	physical  backend.Bytes // bytes the driver holds for live regions
	reserved  backend.Bytes
	live      int
	acquires  uint64
	releases  uint64
	byTag     map[backend.Tag]backend.Bytes
}

// Admit checks an acquisition of n bytes under tag before any driver call:
// the tag must be valid and n in (0, Total]; the phase guard observes it.
// The returned error is a *backend.Error wrapping ErrInvalidValue.
func (l *Ledger) Admit(op string, n backend.Bytes, tag backend.Tag) error {
	if !tag.Valid() || n <= 0 || n > l.Total {
		return &backend.Error{Op: op, Bytes: n, Tag: tag, Err: backend.ErrInvalidValue}
	}
	l.Guard.Observe(tag, n)
	return nil
}

// AdmitGrowable checks a growable acquisition before any driver call:
// reserve positive, commit in [0, reserve] and at most Total, both
// multiples of the granularity, and a valid tag; the phase guard observes
// the commit.
func (l *Ledger) AdmitGrowable(op string, reserve, commit backend.Bytes, tag backend.Tag) error {
	g := l.Granularity
	if !tag.Valid() || reserve <= 0 || reserve%g != 0 || commit < 0 || commit > reserve || commit > l.Total || commit%g != 0 {
		return &backend.Error{Op: op, Bytes: reserve, Tag: tag, Err: backend.ErrInvalidValue}
	}
	l.Guard.Observe(tag, commit)
	return nil
}

// Acquired records a new live region.
func (l *Ledger) Acquired(tag backend.Tag, committed, physical, reserved backend.Bytes) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live++
	l.acquires++
	l.reserved += reserved
	l.change(tag, committed, physical)
}

// Released records the release of a region.
func (l *Ledger) Released(tag backend.Tag, committed, physical, reserved backend.Bytes) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live--
	l.releases++
	l.reserved -= reserved
	l.change(tag, -committed, -physical)
}

// Resized records a change in a live region's committed and physical bytes.
func (l *Ledger) Resized(tag backend.Tag, committed, physical backend.Bytes) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.change(tag, committed, physical)
}

func (l *Ledger) change(tag backend.Tag, committed, physical backend.Bytes) {
	if l.byTag == nil {
		l.byTag = map[backend.Tag]backend.Bytes{}
	}
	l.committed += committed
	l.physical += physical
	if l.byTag[tag] += committed; l.byTag[tag] == 0 {
		delete(l.byTag, tag)
	}
}

// Physical returns the bytes the driver holds for live regions, which for
// a backend that keeps decommitted memory mapped exceeds Committed.
func (l *Ledger) Physical() backend.Bytes {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.physical
}

// Stats returns the snapshot backend.Stats describes. Free is Total minus
// the physical bytes.
func (l *Ledger) Stats() backend.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return backend.Stats{
		Total: l.Total, Free: l.Total - l.physical, Granularity: l.Granularity,
		Committed: l.committed, Reserved: l.reserved, Live: l.live,
		Acquires: l.acquires, Releases: l.releases, ByTag: maps.Clone(l.byTag),
	}
}
