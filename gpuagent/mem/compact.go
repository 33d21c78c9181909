package mem

// This file is the id space of a pool whose memory shrinks from the top
// (the KV pool, committed and decommitted in chunks while serving): it
// hands out the lowest free id, so live blocks gather at the bottom and
// the top drains when load falls, and it counts live blocks and
// acquisitions per bucket of ids (the chunk of memory that holds them),
// so its owner can tell which chunks have been idle.

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

type buckets struct {
	of     []int32           // bucket per id handed out; index 0 unused
	live   []int32           // live blocks per bucket
	acq    []uint64          // acquisitions per bucket, ever
	bucket func(BlockID) int // the owner's map, for ids not yet handed out
}

// NewCompactIDSpace returns an id space like NewBlockIDSpace that hands
// out the lowest free id first. bucket maps each id to its bucket, in
// [0, n), and must not decrease with the id. Handing out the lowest id
// keeps a promise NewBlockIDSpace's LIFO list keeps only while nothing
// shrinks: every id handed out is at most the number of blocks live once
// it is.
//
// The free ids above every id handed out so far are not in the heap (the
// frontier is), so bucket is asked for each id when it is first handed
// out, and it panics there if bucket breaks its contract.
func NewCompactIDSpace(blocks int, tag backend.Tag, n int, bucket func(BlockID) int) *BlockPool {
	if n <= 0 || bucket(1) < 0 || bucket(BlockID(blocks)) >= n {
		panic(fmt.Sprintf("mem: NewCompactIDSpace: blocks 1 and %d in buckets %d and %d, of %d", blocks, bucket(1), bucket(BlockID(blocks)), n))
	}
	p := NewBlockIDSpace(blocks, tag)
	p.lowest = &buckets{of: make([]int32, blocks+1), live: make([]int32, n), acq: make([]uint64, n), bucket: bucket}
	return p
}

// enter records the bucket of id, handed out for the first time.
func (b *buckets) enter(id BlockID) {
	k := b.bucket(id)
	if last := b.of[id-1]; k < int(last) || k >= len(b.live) {
		panic(fmt.Sprintf("mem: NewCompactIDSpace: block %d in bucket %d (after %d, of %d)", id, k, last, len(b.live)))
	}
	b.of[id] = int32(k)
	b.live[k]++
	b.acq[k]++
}

// BucketLive returns the number of live blocks in bucket k of a compact
// id space.
func (p *BlockPool) BucketLive(k int) int { return int(p.lowest.live[k]) }

// BucketAcquires returns how many blocks of bucket k of a compact id
// space have been acquired since it was made. A bucket whose count has
// not moved has handed out no block in between.
func (p *BlockPool) BucketAcquires(k int) uint64 { return p.lowest.acq[k] }

// Bucket returns the bucket of id in a compact id space.
func (p *BlockPool) Bucket(id BlockID) int {
	if id >= p.next {
		return p.lowest.bucket(id)
	}
	return int(p.lowest.of[id])
}

// popLowest removes and returns the lowest free id.
func (p *BlockPool) popLowest() BlockID {
	h := p.free
	id := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h[l] < h[m] {
			m = l
		}
		if r < n && h[r] < h[m] {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	p.free = h
	k := p.lowest.of[id]
	p.lowest.live[k]++
	p.lowest.acq[k]++
	return id
}

// pushLowest returns id to the free heap.
func (p *BlockPool) pushLowest(id BlockID) {
	p.lowest.live[p.lowest.of[id]]--
	h := append(p.free, id)
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if h[up] <= h[i] {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	p.free = h
}
