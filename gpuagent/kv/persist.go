package kv

import (
	"errors"
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/mem"
)

// A Snapshot is the serializable form of the prefix cache: the cached
// hashes, least recently used first. It holds no block ids; the blocks'
// contents travel beside it, in the same order.
type Snapshot struct {
	Hashes []Hash `json:"hashes"`
}

// A Saved holds one reference to every block of a snapshot, so the blocks
// stay alive and unchanged while their contents are copied out, whatever
// the cache evicts meanwhile. The caller closes it when the copy is done.
type Saved struct {
	Snapshot Snapshot
	refs     []mem.BlockRef
}

// SavePrefix snapshots the prefix cache, taking a reference to each block.
func (m *Manager) SavePrefix() *Saved {
	s := &Saved{refs: make([]mem.BlockRef, m.cache.len())}
	i := 0
	for e := m.cache.lru.next; e != &m.cache.lru; e = e.next {
		s.Snapshot.Hashes = append(s.Snapshot.Hashes, e.h)
		s.refs[i] = e.ref.Share()
		i++
	}
	return s
}

// Block returns the block holding the i-th snapshot entry, to copy from.
func (s *Saved) Block(i int) mem.BlockID { return s.refs[i].ID() }

// Close drops the snapshot's references. Closing twice panics.
func (s *Saved) Close() {
	if s.refs == nil {
		panic("kv: double close of a Saved prefix snapshot")
	}
	for i := range s.refs {
		s.refs[i].Release()
	}
	s.refs = nil
}

// A Loaded entry names a block LoadPrefix registered, for the caller to
// fill with the entry's content.
type Loaded struct {
	Hash  Hash
	Block mem.BlockID
}

// LoadPrefix re-registers snap's hashes in the prefix cache, each with a
// freshly acquired block that the cache holds a reference to. Hashes
// already cached are skipped. It stops at the first block it cannot
// acquire without reclaiming, returning what it loaded and an error
// wrapping mem.ErrPoolFull. The caller fills the returned blocks before
// serving.
func (m *Manager) LoadPrefix(snap Snapshot) ([]Loaded, error) {
	var out []Loaded
	for i, h := range snap.Hashes {
		if h == 0 || m.cache.get(h) != nil {
			continue
		}
		r, err := m.cfg.Global.Acquire()
		if errors.Is(err, mem.ErrPoolFull) {
			return out, fmt.Errorf("kv: load prefix entry %d of %d: %w", i, len(snap.Hashes), err)
		}
		out = append(out, Loaded{h, r.ID()})
		m.cache.put(h, &r)
	}
	return out, nil
}
