package agent

// This file delivers pool messages to the clients that map the global KV
// pool without holding the agent's lock, so a client that is slow to
// answer, or never answers, delays nothing but its own lease.
//
// Each mapping client has a mapper: a queue of messages and a goroutine
// that sends them in order, one at a time, and waits for each answer. A
// message (a broadcast) is queued for every mapper at once, under the lock,
// and the lock is released; the descriptors a map message carries are
// exported once and closed when the last mapper is done with them. A
// mapper answers in order, so the sequence number of its last answer says
// which messages it has acted on.
//
// The rule that keeps a client's view of the pool true: a lease whose
// client maps the pool is handed a block only once its client has answered
// every map message sent so far (lastMap). Only that lease's call waits for
// that, with the lock released; other leases' calls go on. A client that
// answers with an error, or has not answered a message within
// Config.MapTimeout of its queueing, loses its lease at once: its sender
// fails the Push and ends the lease, and a call of that lease waiting for
// the answer wakes to find it ended.

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// A mapper is one lease's client mapping the global pool: the messages
// queued for it and how far it has answered. Its fields are guarded by
// the agent's mutex, except wake.
type mapper struct {
	l         *lease
	pc        PoolClient
	queue     []*broadcast  // sent in order by the mapper's goroutine; the head is in flight
	acked     uint64        // the sequence number of the last message it answered
	err       error         // why it stopped; nil while it works
	attaching bool          // AttachPool is waiting for its first answers
	closed    bool          // pc was closed
	gone      bool          // its connection closed with a message in flight
	wake      chan struct{} // 1-buffered: a message was queued, or err set
}

// errLeaseEnded stops the mapper of a lease that ended.
var errLeaseEnded = errors.New("the lease ended")

// A broadcast is one pool message queued for one or more mappers, and
// the descriptors it carries. Guarded by the agent's mutex.
type broadcast struct {
	msg      wire.PoolMsg
	fds      []int
	left     int // mappers yet to answer it or stop
	clients  int
	queued   time.Time
	deadline time.Time
}

// newBroadcast numbers a message of op for chunks cs, exporting each
// chunk's descriptor for a map message.
func (a *Agent) newBroadcast(op string, cs []backend.Chunk) (*broadcast, error) {
	a.poolSeq++
	now := time.Now()
	b := &broadcast{msg: wire.PoolMsg{Seq: a.poolSeq, Op: op, Chunks: make([]wire.PoolChunk, len(cs))},
		queued: now, deadline: now.Add(a.cfg.MapTimeout)}
	for i, c := range cs {
		b.msg.Chunks[i] = wire.PoolChunk{Offset: int64(c.Offset), Size: int64(c.Size)}
		if op != wire.PoolMap {
			continue
		}
		fd, err := a.share.Export(a.global.r, c.Offset)
		if err != nil {
			closeAll(&b.fds)
			return nil, fmt.Errorf("exporting the chunk at offset %d: %w", c.Offset, err)
		}
		b.fds = append(b.fds, fd)
	}
	return b, nil
}

// enqueue queues b for every mapper of ms and wakes their senders.
func (a *Agent) enqueue(b *broadcast, ms []*mapper) {
	for _, m := range ms {
		m.queue = append(m.queue, b)
		b.left++
		b.clients++
		m.signal()
	}
	if b.left == 0 {
		a.finish(b)
	}
}

func (m *mapper) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// finish notes that one more mapper is done with b; the last one closes
// its descriptors and times it.
func (a *Agent) finish(b *broadcast) {
	if b.left--; b.left > 0 {
		return
	}
	closeAll(&b.fds)
	a.pushes.note(b.msg.Op, b.clients, len(b.msg.Chunks), time.Since(b.queued))
}

func closeAll(fds *[]int) {
	for _, fd := range *fds {
		syscall.Close(fd)
	}
	*fds = nil
}

// mappers returns the mappers of every lease whose client maps the pool,
// attaching ones included.
func (a *Agent) mappers() []*mapper {
	var ms []*mapper
	for _, l := range a.leases {
		if m := l.mapper; m != nil && m.err == nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// broadcastMap sends every mapper the chunks of the global pool in
// [from, to), and makes them the map messages a mapping lease's client
// must have answered before that lease is handed a block. A chunk that
// cannot be exported can be mapped by no one: every mapping lease is lost.
func (a *Agent) broadcastMap(from, to backend.Bytes) {
	ms := a.mappers()
	if len(ms) == 0 || a.share == nil {
		return
	}
	var cs []backend.Chunk
	for _, c := range a.share.Chunks(a.global.r) {
		if c.Offset >= from && c.Offset < to {
			cs = append(cs, c)
		}
	}
	for len(cs) > 0 {
		n := min(len(cs), wire.MaxPoolFDs)
		b, err := a.newBroadcast(wire.PoolMap, cs[:n])
		if err != nil {
			for _, m := range ms {
				a.fail(m, err)
			}
			return
		}
		a.enqueue(b, ms)
		a.lastMap = b.msg.Seq
		cs = cs[n:]
	}
}

// send is a mapper's goroutine: it pushes the mapper's messages in order
// until the mapper stops.
func (a *Agent) send(m *mapper) {
	defer a.senders.Done()
	for {
		b := a.next(m)
		if b == nil {
			return
		}
		err := m.pc.Push(&b.msg, b.fds, b.deadline)
		a.answered(m, b, err)
	}
}

// next returns the message at the head of m's queue, waiting for one, or
// nil once m has stopped, when it lets go of every message still queued.
func (a *Agent) next(m *mapper) *broadcast {
	for {
		a.mu.Lock()
		if m.err != nil {
			for _, b := range m.queue {
				a.finish(b)
			}
			m.queue = nil
			a.mu.Unlock()
			return nil
		}
		if len(m.queue) > 0 {
			b := m.queue[0]
			a.mu.Unlock()
			return b
		}
		a.mu.Unlock()
		<-m.wake
	}
}

// answered records m's answer to b, the head of its queue: err is nil
// when the client did what b asked.
func (a *Agent) answered(m *mapper, b *broadcast, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer a.acks.Broadcast()
	if len(m.queue) > 0 && m.queue[0] == b {
		m.queue = m.queue[1:]
		a.finish(b)
	}
	switch {
	case m.err != nil:
	case err != nil:
		a.fail(m, fmt.Errorf("%s of %d chunks (message %d): %w", b.msg.Op, len(b.msg.Chunks), b.msg.Seq, err))
	default:
		m.acked = b.msg.Seq
		if m.gone {
			a.fail(m, ErrPoolClosed)
		}
	}
}

// fail stops m: its client could not do what a message asked, or went
// away. Its lease ends now — as a disconnect when the pool connection
// closed, else as a loss, with why kept for its next call — unless
// AttachPool is still waiting for it, which refuses the mapping instead.
func (a *Agent) fail(m *mapper, err error) {
	if m.err != nil {
		return
	}
	m.err = err
	m.signal()
	a.acks.Broadcast()
	l := m.l
	if m.attaching || l.ended || l.mapper != m {
		return
	}
	if errors.Is(err, ErrPoolClosed) {
		a.remember(l.id, "its pool connection closed")
		a.counters.disconnected++
		a.endLease(l.id)
		return
	}
	a.lose(l, fmt.Sprintf("its client did not answer a KV pool message: %v", err))
}

// detach stops l's mapper, closing its client when close is set.
func (a *Agent) detach(l *lease, close bool) {
	m := l.mapper
	if m == nil {
		return
	}
	l.mapper = nil
	a.mapped--
	if m.err == nil {
		m.err = errLeaseEnded
		m.signal()
	}
	if close && !m.closed {
		m.closed = true
		m.pc.Close()
	}
	a.acks.Broadcast()
}

// awaitMapped waits, not holding the lock, until l's client has answered
// every map message sent so far, so every block below the commit is mapped
// on its side. It reports whether it waited (the agent may have changed
// meanwhile), or why l can be handed nothing: it ended while waiting, or
// its client stopped.
func (a *Agent) awaitMapped(l *lease) (bool, *wire.Error) {
	waited := false
	for {
		switch m := l.mapper; {
		case l.ended:
			return waited, a.noLease(l.id)
		case m == nil || !m.attaching && m.acked >= a.lastMap:
			return waited, nil
		case m.err != nil:
			return waited, wire.Errorf(wire.CodeNoLease, "lease %.40q is ending: %v", l.id, m.err)
		}
		waited = true
		a.acks.Wait()
	}
}
