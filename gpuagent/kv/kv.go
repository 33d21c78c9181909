// Package kv manages paged KV blocks for sequences: positional block tables
// with holes, a content-addressed prefix cache, prefix pins, and saving and
// loading the prefix cache. It is A5.1 of the memory architecture in Go.
//
// # Who owns a block
//
// The block pools (package mem) own the memory. A block has two kinds of
// holder, and both hold mem.BlockRefs: a Sequence, one reference per
// positional slot, and the prefix cache, one reference per content hash.
// Pins are an eviction policy over the cache, not owners: a pinned entry is
// skipped by reclaim and holds nothing of its own. A block returns to its
// pool when its last reference is released; nothing frees a block by id.
//
// Cancellation, disconnect and errors all take one path: Sequence.Close,
// which moves each sealed block's reference into the prefix cache (or drops
// it) and drops everything else. Write `defer seq.Close()` where the
// sequence is made.
//
// Sliding-window (SWA) blocks live in their own pool and are never hashed,
// cached, pinned, persisted or shared.
//
// A Manager and its Sequences are not safe for concurrent use: they belong
// to the scheduler goroutine, and callers serialize.
package kv

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// A Hash identifies a full block's content (its tokens and everything
// before them). Zero means "no hash".
type Hash uint64

// Config configures a Manager. Global is required; SWA may be nil when the
// model has no sliding-window layers.
type Config struct {
	Global        *mem.BlockPool // tagged backend.TagKVPool
	SWA           *mem.BlockPool // tagged backend.TagSWAPool, or nil
	CacheCapacity int            // most prefix-cache entries; 0 means no bound
}

// A Manager hands out Sequences and keeps the prefix cache. The Manager does
// not own the pools; whoever made them closes them after Manager.Close.
type Manager struct {
	cfg   Config
	cache cache
	open  int // sequences not yet closed
}

// New returns a Manager over cfg's pools. It panics if the pools are
// tagged wrongly: a reference must never cross between them.
func New(cfg Config) *Manager {
	if cfg.Global == nil || cfg.Global.Tag() == backend.TagSWAPool || cfg.SWA != nil && cfg.SWA.Tag() != backend.TagSWAPool {
		panic(fmt.Sprintf("kv: New with global pool %v and SWA pool %v", cfg.Global, cfg.SWA))
	}
	m := &Manager{cfg: cfg}
	m.cache.init()
	m.cache.limit = cfg.CacheCapacity
	return m
}

// Stats is a snapshot of a Manager.
type Stats struct {
	Sequences    int // open sequences
	CachedBlocks int // prefix-cache entries, each holding one reference
	PinnedBlocks int // cache entries that at least one owner pins
	GlobalLive   int // live blocks in the global pool
	SWALive      int // live blocks in the SWA pool
}

// Stats returns a snapshot of m and its pools.
func (m *Manager) Stats() Stats {
	s := Stats{Sequences: m.open, CachedBlocks: m.cache.len(), PinnedBlocks: m.cache.pinned, GlobalLive: m.cfg.Global.Live()}
	if m.cfg.SWA != nil {
		s.SWALive = m.cfg.SWA.Live()
	}
	return s
}

// acquire moves a fresh global block into dst, reclaiming unpinned cache
// entries, least recently used first, until one is free.
func (m *Manager) acquire(dst *mem.BlockRef) error {
	for {
		r, err := m.cfg.Global.Acquire()
		if err == nil {
			*dst = r.Move()
			return nil
		}
		if !m.cache.reclaimOne() {
			return err
		}
	}
}

// Reclaim drops up to n unpinned prefix-cache entries, least recently used
// first, and returns how many it dropped. A dropped entry's block returns
// to the pool only if no sequence still holds it.
func (m *Manager) Reclaim(n int) int {
	i := 0
	for i < n && m.cache.reclaimOne() {
		i++
	}
	return i
}

// ReclaimFrom drops every unpinned prefix-cache entry whose block id is
// from or higher, and returns how many it dropped: what a pool about to
// give the top of its memory back does, since a cache entry is not a
// reason to keep memory. A dropped entry's block returns to the pool only
// if no sequence still holds it.
func (m *Manager) ReclaimFrom(from mem.BlockID) int {
	n := 0
	for e := m.cache.lru.next; e != &m.cache.lru; {
		next := e.next
		if e.pins == 0 && e.ref.ID() >= from {
			m.cache.drop(e)
			n++
		}
		e = next
	}
	return n
}

// Pin marks the cached entries for hashes as pinned by owner, so reclaim
// skips them. Pins hold no references. It returns how many hashes were in
// the cache and are now pinned.
func (m *Manager) Pin(owner string, hashes ...Hash) int { return m.cache.pin(owner, hashes) }

// Unpin removes all of owner's pins.
func (m *Manager) Unpin(owner string) { m.cache.unpin(owner) }

// Cached reports whether the prefix cache holds h.
func (m *Manager) Cached(h Hash) bool { return m.cache.get(h) != nil }

// Close drops every prefix-cache entry. It panics if a sequence is still
// open.
func (m *Manager) Close() {
	if m.open != 0 {
		panic(fmt.Sprintf("kv: Close of a manager with %d open sequences", m.open))
	}
	m.cache.unpinAll()
	for m.cache.reclaimOne() {
	}
}
