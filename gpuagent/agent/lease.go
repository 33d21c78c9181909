package agent

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// A lease is what one engine process holds: its sequences, by handles
// private to the lease, and its pins (owner: the lease id). It belongs to
// the connection that opened it.
type lease struct {
	id      string
	name    string
	conn    uint64 // 0: not bound to a connection
	ttl     time.Duration
	expires time.Time
	seqs    map[uint64]*seqState
	next    uint64  // last handle given out
	pins    int64   // hashes this lease pinned
	credits int64   // global blocks promised to its sequences
	salt    uint64  // cache salt key (saltOf); 0: the shared cache
	mapper  *mapper // the client mapping the KV pool for this lease, or nil
	ended   bool    // ended while a call of it waited for its client (push.go)
}

// Conn identifies a client connection to the agent; 0 is none (in-process
// callers).
type Conn = uint64

// OpenLease opens a lease for conn with the asked TTL (0: the default,
// capped at MaxLeaseTTL).
func (a *Agent) OpenLease(conn Conn, req wire.OpenLease) (wire.Lease, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return wire.Lease{}, wire.Errorf(wire.CodeUnavailable, "the agent is closed")
	}
	if len(a.leases) >= a.cfg.MaxLeases {
		return wire.Lease{}, wire.Errorf(wire.CodeUnavailable, "%d leases open, the most this agent holds", len(a.leases))
	}
	if err := a.connFull(conn); err != nil {
		return wire.Lease{}, err
	}
	if req.TTLms < 0 || req.TTLms > wire.MaxTTLms || len(req.Name) > 128 || len(req.CacheSalt) > 256 {
		return wire.Lease{}, wire.Errorf(wire.CodeBadRequest, "ttl_ms %d, name of %d bytes or cache_salt of %d bytes out of bounds",
			req.TTLms, len(req.Name), len(req.CacheSalt))
	}
	ttl := a.cfg.LeaseTTL
	if req.TTLms > 0 {
		ttl = min(time.Duration(req.TTLms)*time.Millisecond, a.cfg.MaxLeaseTTL)
	}
	l := &lease{id: newLeaseID(), name: req.Name, conn: conn, ttl: ttl, seqs: map[uint64]*seqState{}, salt: saltOf(req.CacheSalt)}
	l.expires = a.cfg.Now().Add(ttl)
	a.leases[l.id] = l
	return a.describe(l), nil
}

func newLeaseID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func (a *Agent) describe(l *lease) wire.Lease {
	g := a.geometry
	return wire.Lease{Lease: l.id, TTLms: l.ttl.Milliseconds(), Limits: wire.Limits{
		MaxSeqLen: g.maxSeqLen, MaxBatch: g.maxBatch, BlockTokens: g.blockTokens,
		BlockBytes: int64(a.global.stride), Blocks: int64(a.global.ids.Blocks()), KVBase: uint64(a.global.r.Base()),
		LeaseSeqs: a.quota.leaseSeqs, LeaseBlocks: a.quota.leaseBlocks, Salted: l.salt != 0,
	}}
}

// lookup returns conn's live lease id, renewing it; every call through a
// lease renews it.
func (a *Agent) lookup(conn Conn, id string) (*lease, *wire.Error) {
	l := a.leases[id]
	if l == nil || l.conn != conn {
		return nil, a.noLease(id)
	}
	l.expires = a.cfg.Now().Add(l.ttl)
	return l, nil
}

// Renew extends a lease by its TTL.
func (a *Agent) Renew(conn Conn, id string) (wire.Lease, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, err := a.lookup(conn, id)
	if err != nil {
		return wire.Lease{}, err
	}
	return a.describe(l), nil
}

// CloseLease ends a lease, releasing everything it holds.
func (a *Agent) CloseLease(conn Conn, id string) *wire.Error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.lookup(conn, id); err != nil {
		return err
	}
	a.endLease(id)
	return nil
}

// CloseConn ends every lease conn opened: the client disconnected.
func (a *Agent) CloseConn(conn Conn) {
	if conn == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, l := range a.leases {
		if l.conn == conn {
			a.endLease(id)
			a.counters.disconnected++
		}
	}
}

// Expire ends every lease not renewed within its TTL and returns how many
// it ended.
func (a *Agent) Expire() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	now, n := a.cfg.Now(), 0
	for id, l := range a.leases {
		if now.After(l.expires) {
			a.endLease(id)
			a.counters.expired++
			n++
		}
	}
	return n
}

// endLease closes every sequence of the lease through the one KV release
// path, drops its pins and closes its pool client. A call of the lease
// waiting for its client (awaitMapped) wakes to find it ended.
func (a *Agent) endLease(id string) {
	l := a.leases[id]
	for h, st := range l.seqs {
		a.endSeq(l, h, st)
	}
	if l.pins > 0 {
		a.kv.Unpin(l.id)
	}
	a.detach(l, true)
	l.ended = true
	delete(a.leases, id)
}
