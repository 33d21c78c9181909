package kv

import "github.com/vramplan/vramplan/gpuagent/mem"

// entry is one prefix-cache entry: its own reference to the block holding
// the content with hash h, and its place in the LRU list.
type entry struct {
	h          Hash
	ref        mem.BlockRef
	pins       int // owners pinning this entry
	prev, next *entry
}

// cache is the content-addressed prefix cache: a map by hash and an LRU
// list (lru.next is the least recently used entry).
type cache struct {
	byHash map[Hash]*entry
	lru    entry // sentinel
	pins   map[string][]Hash
	pinned int // entries with pins > 0
	limit  int
}

func (c *cache) init() {
	c.byHash = map[Hash]*entry{}
	c.pins = map[string][]Hash{}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
}

func (c *cache) len() int { return len(c.byHash) }

func (c *cache) get(h Hash) *entry { return c.byHash[h] }

func (c *cache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

// touch makes e the most recently used entry.
func (c *cache) touch(e *entry) {
	if e.next != nil {
		c.unlink(e)
	}
	e.prev, e.next = c.lru.prev, &c.lru
	c.lru.prev.next = e
	c.lru.prev = e
}

// put takes over ref as the cache's reference for h. The caller has
// checked that h is not cached.
func (c *cache) put(h Hash, ref *mem.BlockRef) {
	e := &entry{h: h, ref: ref.Move()}
	c.byHash[h] = e
	c.touch(e)
	if c.limit > 0 && len(c.byHash) > c.limit {
		c.reclaimOne()
	}
}

// reclaimOne drops the least recently used unpinned entry's reference and
// reports whether there was one.
func (c *cache) reclaimOne() bool {
	for e := c.lru.next; e != &c.lru; e = e.next {
		if e.pins == 0 {
			c.drop(e)
			return true
		}
	}
	return false
}

// drop removes e and releases its reference.
func (c *cache) drop(e *entry) {
	c.unlink(e)
	delete(c.byHash, e.h)
	e.ref.Release()
}

func (c *cache) pin(owner string, hs []Hash) int {
	n := 0
	for _, h := range hs {
		if e := c.byHash[h]; e != nil {
			c.addPin(e, 1)
			c.pins[owner] = append(c.pins[owner], h)
			n++
		}
	}
	return n
}

func (c *cache) addPin(e *entry, d int) {
	was := e.pins > 0
	e.pins += d
	switch now := e.pins > 0; {
	case now && !was:
		c.pinned++
	case was && !now:
		c.pinned--
	}
}

func (c *cache) unpin(owner string) {
	for _, h := range c.pins[owner] {
		if e := c.byHash[h]; e != nil {
			c.addPin(e, -1)
		}
	}
	delete(c.pins, owner)
}

func (c *cache) unpinAll() {
	for owner := range c.pins {
		c.unpin(owner)
	}
}
