package agent

// This file holds what one client may take of the agent, so that no
// connection or lease can hold everything the plan provides: leases per
// connection, and per lease its sequences and the KV blocks admission
// promised it. The defaults let one engine process use the whole plan on
// one lease (the usual deployment); an agent shared by several engines or
// users lowers them (gpuagent serve --conn-leases, --lease-seqs,
// --lease-blocks). Every refusal names the quota and how to raise it.
//
// It also holds the per-lease cache salt. The prefix cache is shared by
// every lease: a block sealed with a content hash is found again by any
// sequence that names the same hash, and Result.Hits says so. So a lease
// that names the hash of a prefix learns whether another lease processed
// it (a side channel across tenants, as in vLLM's automatic prefix
// caching). A lease opened with a cache_salt sees only the blocks sealed by
// leases that gave the same salt: its hashes are mixed with the salt before
// they reach the cache, as vLLM's cache_salt is mixed into the first
// block's hash.

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// quotas are the per-client limits, resolved against the plan at load.
type quotas struct {
	connLeases  int   // open leases per connection
	leaseSeqs   int   // open sequences per lease
	leaseBlocks int64 // global KV blocks promised to one lease's sequences
}

func (a *Agent) resolveQuotas() {
	c := &a.cfg
	blocks := int64(a.global.ids.Blocks())
	a.quota = quotas{connLeases: orDefault(c.ConnLeases, 64), leaseSeqs: c.LeaseSeqs, leaseBlocks: c.LeaseBlocks}
	if a.quota.leaseSeqs <= 0 {
		a.quota.leaseSeqs = int(min(blocks, 1<<20)) // every sequence holds a block
	}
	if a.quota.leaseBlocks <= 0 || a.quota.leaseBlocks > blocks {
		a.quota.leaseBlocks = blocks
	}
}

// connFull returns why conn may open no more leases, or nil. A connection
// of 0 (an in-process caller) has no quota.
func (a *Agent) connFull(conn Conn) *wire.Error {
	if conn == 0 {
		return nil
	}
	n := 0
	for _, l := range a.leases {
		if l.conn == conn {
			n++
		}
	}
	if n >= a.quota.connLeases {
		return wire.Errorf(wire.CodeUnavailable, "%d leases open on this connection, the quota per connection (--conn-leases)", n)
	}
	return nil
}

// leaseFull returns why l may not promise g more blocks to a new sequence,
// or nil.
func (a *Agent) leaseFull(l *lease, g int64) *wire.Error {
	if l == nil {
		return nil
	}
	if len(l.seqs) >= a.quota.leaseSeqs {
		return wire.Errorf(wire.CodeTooLarge, "%d sequences open on this lease, the quota per lease (--lease-seqs): free one first", len(l.seqs))
	}
	if l.credits+g > a.quota.leaseBlocks {
		a.counters.refused++
		e := wire.Errorf(wire.CodeCapacity, "this lease cannot be promised %d more blocks: it holds %d of its quota of %d (--lease-blocks)",
			g, l.credits, a.quota.leaseBlocks)
		e.NeedBlocks, e.AvailableBlocks, e.PoolBlocks = g, max(a.quota.leaseBlocks-l.credits, 0), int64(a.global.ids.Blocks())
		return e
	}
	return nil
}

// saltOf returns the 64-bit key a cache salt stands for; 0 for none.
func saltOf(salt string) uint64 {
	if salt == "" {
		return 0
	}
	sum := sha256.Sum256([]byte("gpuagent cache salt\x00" + salt))
	return binary.LittleEndian.Uint64(sum[:]) | 1
}

// salted returns the hash the cache is given for a client's hash h under
// salt: h itself without a salt, and 0 (unknown) for 0. For one salt the
// mapping is one to one but for the single hash it would send to 0, so
// distinct hashes stay distinct.
func salted(h, salt uint64) kv.Hash {
	if h == 0 || salt == 0 {
		return kv.Hash(h)
	}
	x := mix64(h ^ salt)
	x = mix64(x + salt)
	if x == 0 {
		x = salt // the one hash that would read as unknown
	}
	return kv.Hash(x)
}

// mix64 is the SplitMix64 finalizer, a bijection on uint64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// HoldsLeases reports whether conn has a lease open. The server uses it to
// choose an idle connection it may close when its connection cap is
// reached: one holding no lease loses nothing by closing.
func (a *Agent) HoldsLeases(conn Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range a.leases {
		if l.conn == conn {
			return true
		}
	}
	return false
}
