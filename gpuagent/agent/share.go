package agent

// This file shares the global KV pool with engine processes: a lease
// attaches a PoolClient (the server's end of its pool connection), which
// is sent every committed chunk as a file descriptor, and every chunk the
// pool commits later before any block in it is handed out (wire's pool
// connection says how). A client that cannot map loses its lease.

import (
	"errors"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

// A PoolClient is an engine process that maps the global KV pool. Push
// delivers one message with the descriptors it carries (one per chunk of a
// map message; the PoolClient does not close them) and waits for the
// client's answer until deadline: a refusal or a missed deadline is an
// error. Close ends the connection, and makes a Push in progress return.
// The agent calls Push from one goroutine per client, one message at a
// time and never holding its lock, and calls Close once, possibly while a
// Push is in progress.
type PoolClient interface {
	Push(msg *wire.PoolMsg, fds []int, deadline time.Time) error
	Close()
}

// ErrPoolClosed is what a PoolClient's Push wraps when its connection
// has closed: the client went away, which ends its lease as a disconnect,
// not a loss.
var ErrPoolClosed = errors.New("the pool connection closed")

// maxLost bounds the lost-lease reasons kept for the leases' next calls.
const maxLost = 1024

// AttachPool maps the global KV pool into the process behind pc for the
// lease id, sending it the layout and every committed chunk, and returns
// once pc has answered, or failed to within the map timeout (the lease is
// then kept, unmapped). From then on pc receives every chunk the pool
// commits before the lease is handed any block in it, and is asked to
// unmap every chunk before it is decommitted. The lease ends when pc
// fails, and pc is closed when the lease ends. AttachPool waits without
// holding the agent's lock.
func (a *Agent) AttachPool(id string, pc PoolClient) *wire.Error {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.leases[id]
	switch {
	case l == nil:
		return a.noLease(id)
	case a.share == nil:
		return wire.Errorf(wire.CodeUnavailable, "this agent's backend cannot share the KV pool: "+
			"serve with --backend vmm on a device with POSIX-fd export (or --backend fake on Linux)")
	case l.mapper != nil:
		return wire.Errorf(wire.CodeBadRequest, "lease %.40q already maps the pool", id)
	}
	m := &mapper{l: l, pc: pc, attaching: true, wake: make(chan struct{}, 1)}
	l.mapper = m
	a.mapped++
	a.senders.Add(1)
	go a.send(m)
	last, err := a.sendLayout(m)
	for err == nil && m.err == nil && m.acked < last && !l.ended {
		a.acks.Wait()
	}
	m.attaching = false
	a.acks.Broadcast() // a call of the lease may be waiting for the mapping
	switch {
	case l.ended:
		return a.noLease(id)
	case err == nil && m.err != nil:
		err = m.err
	}
	if err != nil {
		a.detach(l, false)
		return wire.Errorf(wire.CodeUnavailable, "mapping the KV pool: %v", err)
	}
	return nil
}

// sendLayout queues for m the layout and every chunk it may map now:
// those committed, less any an unmap in flight gives back. It returns the
// last message's sequence number.
func (a *Agent) sendLayout(m *mapper) (uint64, error) {
	var chunks []backend.Chunk
	for _, c := range a.share.Chunks(a.global.r) {
		if a.leaving == 0 || c.Offset < a.leaving {
			chunks = append(chunks, c)
		}
	}
	for first := true; first || len(chunks) > 0; first = false {
		n := min(len(chunks), wire.MaxPoolFDs)
		b, err := a.newBroadcast(wire.PoolMap, chunks[:n])
		if err != nil {
			return 0, err
		}
		if first {
			b.msg.Layout = a.layout()
		}
		a.enqueue(b, []*mapper{m})
		chunks = chunks[n:]
	}
	return a.poolSeq, nil
}

// lose ends l, remembering why for its next call.
func (a *Agent) lose(l *lease, why string) {
	a.logf("gpuagent: lease %s (%.128q) lost: %s", l.id[:8], l.name, why)
	a.remember(l.id, why)
	a.counters.lost++
	a.endLease(l.id)
}

// remember keeps why lease id ended, for its next call.
func (a *Agent) remember(id, why string) {
	if len(a.lost) >= maxLost {
		for old := range a.lost {
			delete(a.lost, old)
			break
		}
	}
	a.lost[id] = why
}

// noLease is the error for a lease id that names no open lease.
func (a *Agent) noLease(id string) *wire.Error {
	if why, ok := a.lost[id]; ok {
		return wire.Errorf(wire.CodeNoLease, "lease %.40q was ended: %s", id, why)
	}
	return wire.Errorf(wire.CodeNoLease, "no lease %.40q on this connection", id)
}

// layout describes the global pool to a client.
func (a *Agent) layout() *wire.PoolLayout {
	p, kvp := a.global, &a.plan.KV
	return &wire.PoolLayout{Reserve: int64(p.r.Reserved()), Granularity: int64(a.b.Stats().Granularity),
		Chunk: int64(p.chunk), Blocks: int64(p.ids.Blocks()), BlockBytes: int64(p.stride),
		BlockTokens: kvp.BlockTokens, Dtype: string(kvp.Dtype), Layers: layers(&a.plan)}
}

// layers lays out one block of the global pool: every full-attention and
// MLA layer in order, keys then values, each token-major. It returns nil
// when that does not add up to the plan's block bytes.
func layers(p *planner.Plan) []wire.LayerLayout {
	t, d := int64(p.KV.BlockTokens), p.KV.Dtype
	var out []wire.LayerLayout
	var off int64
	layer := 0
	for _, g := range p.Input.Model.Layers {
		for range g.Count {
			if ll, ok := layerLayout(&g.Layer, d, t, off); ok {
				ll.Layer = layer
				out = append(out, ll)
				off = ll.V.Offset + ll.V.Bytes
			}
			layer++
		}
	}
	if off != int64(p.KV.BlockBytes) {
		return nil
	}
	return out
}

func layerLayout(l *planner.Layer, d planner.KVDtype, t, off int64) (wire.LayerLayout, bool) {
	switch l.Kind {
	case planner.LayerFull:
		k, v := int64(d.RowBytes(l.KeyDim)), int64(d.RowBytes(l.ValueDim))
		h := int64(l.KVHeads)
		return wire.LayerLayout{KVHeads: l.KVHeads, KRow: k, VRow: v,
			K: wire.Span{Offset: off, Bytes: t * h * k}, V: wire.Span{Offset: off + t*h*k, Bytes: t * h * v}}, true
	case planner.LayerMLA:
		k := int64(d.RowBytes(l.LatentDim))
		return wire.LayerLayout{KVHeads: 1, KRow: k, K: wire.Span{Offset: off, Bytes: t * k},
			V: wire.Span{Offset: off + t*k}}, true
	}
	return wire.LayerLayout{}, false
}

// PoolClosed ends lease id when pc, its pool connection, has closed: a
// client that stopped mapping the pool must not be handed blocks. It
// counts as a disconnect, not a loss.
func (a *Agent) PoolClosed(id string, pc PoolClient) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.leases[id]
	if l == nil || l.mapper == nil || l.mapper.pc != pc {
		return
	}
	if m := l.mapper; len(m.queue) > 0 {
		// A message is in flight: its Push returns now, and its answer,
		// read before the close (a refusal is a loss), ends the lease.
		m.gone = true
		return
	}
	a.remember(id, "its pool connection closed")
	a.counters.disconnected++
	a.endLease(id)
}
