package agent

// This file gives the global KV pool's memory back while serving (seed
// A3.1). The pool's id space hands out the lowest free block, so when load
// falls the top chunks drain; a chunk that has handed out no block for the
// plan's hysteresis (KVPlan.Shrink: IdleSteps steps and IdleMs, or IdleMs
// with no step at all) has its unpinned prefix-cache entries dropped (again after a sequence
// closes), and
// once no block of it or above is live, every client mapping the pool is
// asked to unmap it, and it is decommitted after an event fence. The base
// address never moves, and decommitting is no acquisition.

import (
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/mem"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

// shrinker is the global pool's shrink state.
type shrinker struct {
	policy      planner.ShrinkPlan
	floor       backend.Bytes // the initial commit: never decommitted
	steps       uint64        // engine steps served
	closed      uint64        // sequences closed
	lastSteps   uint64        // steps at the last sweep that saw them change
	quietSince  time.Time     // when the step count last changed
	idle        []idleChunk   // per chunk of the reservation
	decommitted backend.Bytes // bytes decommitted while serving, in all
}

// idleChunk is what a sweep last saw of one chunk: its acquisitions, and
// since when and since which step they have not moved.
type idleChunk struct {
	seen      bool
	acq       uint64
	since     time.Time
	step      uint64
	reclaimed uint64 // sequences closed when its cache entries were last dropped, +1; 0: never
	fresh     bool   // seen idle before this sweep (not restarted by it)
}

// trimmer is a backend that keeps decommitted memory mapped for its own
// hysteresis (the VMM backend); the agent has its own, so it trims.
type trimmer interface {
	Trim(r *backend.Region) error
}

// openSharing decides whether the global pool can be shared — the backend
// is a Sharer and exports its first chunk — and sets up shrinking.
func (a *Agent) openSharing() {
	p := a.global
	a.shrink.policy = a.plan.KV.Shrink
	if a.shrink.policy.IdleMs <= 0 {
		a.shrink.policy = planner.ShrinkPolicy(&a.plan.Input.Calibration, planner.Bytes(p.chunk))
	}
	a.shrink.floor = p.r.Committed()
	a.shrink.idle = make([]idleChunk, ceilDiv(int64(p.r.Reserved()), int64(p.chunk)))
	a.shrink.quietSince = a.cfg.Now()
	s, ok := a.b.(backend.Sharer)
	if !ok || !p.r.Growable() || p.r.Committed() == 0 {
		return
	}
	if fd, err := s.Export(p.r, 0); err == nil {
		closeAll(&[]int{fd})
		a.share = s
	}
}

// Shrink decommits the chunks at the top of the global KV pool that have
// been idle for the plan's hysteresis and returns how many bytes it gave
// back. The server calls it on every sweep.
func (a *Agent) Shrink() backend.Bytes {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || !a.global.r.Growable() {
		return 0
	}
	now := a.cfg.Now()
	s := &a.shrink
	if s.steps != s.lastSteps {
		s.lastSteps, s.quietSince = s.steps, now
	}
	p := a.global
	have := int(ceilDiv(int64(p.r.Committed()), int64(p.chunk)))
	floor := int(ceilDiv(int64(s.floor), int64(p.chunk)))
	for k := floor; k < have; k++ {
		a.observe(k, now)
	}
	lowest := have
	for k := have - 1; k >= floor && a.drained(k, now); k-- {
		lowest = k
	}
	keep := max(floor, lowest+s.policy.KeepChunks)
	if keep >= have {
		return 0
	}
	return a.decommit(backend.Bytes(keep) * p.chunk)
}

// drained reports whether chunk k of the global pool has been idle for
// the hysteresis and holds no live block, dropping its cache entries once
// per idle spell.
func (a *Agent) drained(k int, now time.Time) bool {
	s, p := &a.shrink, a.global
	st := &s.idle[k]
	if !st.fresh {
		return false
	}
	hold := time.Duration(s.policy.IdleMs) * time.Millisecond
	quiet := now.Sub(s.quietSince) >= hold
	if now.Sub(st.since) < hold || s.steps-st.step < uint64(s.policy.IdleSteps) && !quiet {
		return false
	}
	// A sequence that closes moves its blocks into the cache without
	// acquiring: drop the cache's entries again after any did.
	if p.ids.BucketLive(k) > 0 && a.shrink.closed+1 != st.reclaimed {
		a.kv.ReclaimFrom(p.firstID(k))
		st.reclaimed = a.shrink.closed + 1
	}
	return p.ids.BucketLive(k) == 0
}

// observe restarts chunk k's idle spell if it handed out a block since
// the last sweep, or was never seen.
func (a *Agent) observe(k int, now time.Time) {
	s, p := &a.shrink, a.global
	st := &s.idle[k]
	st.fresh = true
	if acq := p.ids.BucketAcquires(k); !st.seen || st.acq != acq {
		*st = idleChunk{seen: true, acq: acq, since: now, step: s.steps}
	}
}

// firstID returns the first block whose last byte lies in chunk k.
func (p *kvPool) firstID(k int) mem.BlockID {
	return mem.BlockID(backend.Bytes(k)*p.chunk/p.stride + 1)
}

// decommit asks every mapping client to unmap the global pool above n,
// waits (not holding the lock) until each has answered or stopped, then
// decommits what is still to give back. Meanwhile no block above n is
// handed out, and a lease that needs those chunks takes them back
// (ensureGlobal) rather than waiting. A client that does not unmap loses
// its lease (its process keeps the memory until it unmaps or exits: the
// driver frees memory only when its last importer lets go).
func (a *Agent) decommit(n backend.Bytes) backend.Bytes {
	p := a.global
	if a.leaving != 0 {
		return 0 // another sweep's unmap is being answered
	}
	if a.share != nil && !boundary(a.share.Chunks(p.r), n) {
		return 0
	}
	if ms := a.mappers(); len(ms) > 0 {
		if n = a.unmap(ms, n); n == 0 {
			return 0
		}
	}
	was := p.r.Committed()
	if err := a.b.Decommit(p.r, n); err != nil {
		a.logf("gpuagent: WARN decommitting the KV pool to %v: %v", n, err)
		return 0
	}
	if t, ok := a.b.(trimmer); ok {
		t.Trim(p.r)
	}
	p.decom++
	a.shrink.decommitted += was - n
	for k := int(n / p.chunk); k < len(a.shrink.idle); k++ {
		a.shrink.idle[k] = idleChunk{}
	}
	return was - n
}

// unmap asks ms to unmap the global pool above n and waits for their
// answers, and returns what the pool may now shrink to: n, or more when a
// lease took chunks back meanwhile; 0 when nothing is left to give back.
func (a *Agent) unmap(ms []*mapper, n backend.Bytes) backend.Bytes {
	var cs []backend.Chunk
	for _, c := range a.share.Chunks(a.global.r) {
		if c.Offset >= n {
			cs = append(cs, c)
		}
	}
	b, _ := a.newBroadcast(wire.PoolUnmap, cs) // exports nothing: cannot fail
	a.enqueue(b, ms)
	a.leaving = n
	for !a.closed && a.leaving != 0 && !unmapped(ms, b.msg.Seq) {
		a.acks.Wait()
	}
	n, a.leaving = a.leaving, 0
	if a.closed || n >= a.global.r.Committed() {
		return 0
	}
	return n
}

// unmapped reports whether every mapper of ms has answered message seq
// or stopped.
func unmapped(ms []*mapper, seq uint64) bool {
	for _, m := range ms {
		if m.err == nil && m.acked < seq {
			return false
		}
	}
	return true
}

// boundary reports whether n is where a chunk starts or the committed end.
func boundary(cs []backend.Chunk, n backend.Bytes) bool {
	for _, c := range cs {
		if c.Offset == n || c.End() == n {
			return true
		}
	}
	return false
}

// pushStats times the messages sent to clients mapping the pool.
type pushStats struct {
	maps, unmaps  uint64
	lastClients   int
	last, longest time.Duration
	recent        []Push // ring of the latest maxPushes pushes, made at the first
	n             int
}

// maxPushes is how many recent pushes Stats reports.
const maxPushes = 256

// Push is one message pushed to every client mapping the pool, timed
// from the first send to the last answer.
type Push struct {
	Op      string  `json:"op"`
	Clients int     `json:"clients"`
	Chunks  int     `json:"chunks"`
	Us      float64 `json:"us"`
}

func (p *pushStats) note(op string, clients, chunks int, d time.Duration) {
	if op == wire.PoolMap {
		p.maps++
	} else {
		p.unmaps++
	}
	p.lastClients, p.last = clients, d
	p.longest = max(p.longest, d)
	if p.recent == nil {
		p.recent = make([]Push, maxPushes) // not in the Agent: 10 KB to clear at every Load
	}
	p.recent[p.n%maxPushes] = Push{Op: op, Clients: clients, Chunks: chunks, Us: us(d)}
	p.n++
}

// pushes returns the recent pushes, oldest first.
func (p *pushStats) pushes() []Push {
	var out []Push
	for i := max(0, p.n-maxPushes); i < p.n; i++ {
		out = append(out, p.recent[i%maxPushes])
	}
	return out
}
