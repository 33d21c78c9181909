package agent

// This file shares the global KV pool with engine processes: a lease
// attaches a PoolClient (the server's end of its pool connection), which
// is sent every committed chunk as a file descriptor, and every chunk the
// pool commits later before any block in it is handed out (wire's pool
// connection says how). A client that cannot map loses its lease.

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

// A PoolClient is an engine process that maps the global KV pool. Push
// delivers one message with the descriptors it carries (one per chunk of a
// map message; the PoolClient does not close them) and waits for the
// client's answer until deadline: a refusal or a missed deadline is an
// error. Close ends the connection. The agent calls Push with its lock
// held, for one client at a time but for many clients at once.
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
// lease id, sending it the layout and every committed chunk. From then on
// pc receives every chunk the pool commits before any block in it is
// handed out, and is asked to unmap every chunk before it is decommitted.
// The lease ends when pc fails, and pc is closed when the lease ends.
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
	case l.pool != nil:
		return wire.Errorf(wire.CodeBadRequest, "lease %.40q already maps the pool", id)
	}
	p := a.global
	chunks := a.share.Chunks(p.r)
	first := true
	for len(chunks) > 0 || first {
		n := min(len(chunks), wire.MaxPoolFDs)
		msg := a.mapMsg(chunks[:n])
		if first {
			msg.Layout = a.layout()
		}
		if err := a.pushAll([]target{{l, pc}}, &msg, chunks[:n]); len(err) > 0 {
			return wire.Errorf(wire.CodeUnavailable, "mapping the KV pool: %v", err[l])
		}
		chunks, first = chunks[n:], false
	}
	l.pool = pc
	a.mapped++
	return nil
}

func (a *Agent) mapMsg(cs []backend.Chunk) wire.PoolMsg {
	a.poolSeq++
	msg := wire.PoolMsg{Seq: a.poolSeq, Op: wire.PoolMap, Chunks: make([]wire.PoolChunk, len(cs))}
	for i, c := range cs {
		msg.Chunks[i] = wire.PoolChunk{Offset: int64(c.Offset), Size: int64(c.Size)}
	}
	return msg
}

// A target is a lease and the client that maps the pool for it.
type target struct {
	l  *lease
	pc PoolClient
}

// pushAll sends msg to every target's client at once, exporting the
// descriptors of cs for map messages and closing them after, and returns
// the leases whose client failed, with why. a.mu is held.
func (a *Agent) pushAll(ls []target, msg *wire.PoolMsg, cs []backend.Chunk) map[*lease]error {
	var fds []int
	defer closeAll(&fds)
	if msg.Op == wire.PoolMap {
		for _, c := range cs {
			fd, err := a.share.Export(a.global.r, c.Offset)
			if err != nil {
				return failAll(ls, fmt.Errorf("exporting the chunk at offset %d: %w", c.Offset, err))
			}
			fds = append(fds, fd)
		}
	}
	t0 := time.Now()
	deadline := t0.Add(a.cfg.MapTimeout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed := map[*lease]error{}
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.pc.Push(msg, fds, deadline); err != nil {
				mu.Lock()
				failed[l.l] = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	a.pushes.note(msg.Op, len(ls), len(msg.Chunks), time.Since(t0))
	return failed
}

func failAll(ls []target, err error) map[*lease]error {
	m := map[*lease]error{}
	for _, l := range ls {
		m[l.l] = err
	}
	return m
}

func closeAll(fds *[]int) {
	for _, fd := range *fds {
		syscall.Close(fd)
	}
}

// mappedLeases returns the leases whose client maps the pool, and the
// clients.
func (a *Agent) mappedLeases() []target {
	var ls []target
	for _, l := range a.leases {
		if l.pool != nil && l.doomed == "" {
			ls = append(ls, target{l, l.pool})
		}
	}
	return ls
}

// pushGrowth sends the chunks committed in [from, to) of the global pool
// to every mapped client. A client that fails is doomed: its lease ends
// when the call that grew the pool returns, and nothing more is handed to
// it before.
func (a *Agent) pushGrowth(from, to backend.Bytes) {
	ls := a.mappedLeases()
	if len(ls) == 0 || a.share == nil {
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
		msg := a.mapMsg(cs[:n])
		for l, err := range a.pushAll(ls, &msg, cs[:n]) {
			a.doom(l, fmt.Sprintf("its client could not map the KV pool's new chunk at offset %d: %v", cs[0].Offset, err))
			l.gone = errors.Is(err, ErrPoolClosed)
		}
		ls = a.mappedLeases()
		cs = cs[n:]
	}
}

// doom marks l to end at the end of the current call, with why.
func (a *Agent) doom(l *lease, why string) {
	if l.doomed == "" {
		l.doomed = why
		a.doomed = append(a.doomed, l)
	}
}

// endDoomed ends every doomed lease. a.mu is held.
func (a *Agent) endDoomed() {
	for _, l := range a.doomed {
		switch {
		case a.leases[l.id] != l:
		case l.gone:
			a.remember(l.id, "its pool connection closed")
			a.counters.disconnected++
			a.endLease(l.id)
		default:
			a.lose(l, l.doomed)
		}
	}
	a.doomed = a.doomed[:0]
	a.caller = nil
}

// lose ends l, remembering why for its next call.
func (a *Agent) lose(l *lease, why string) {
	a.logf("gpuagent: lease %s (%s) lost: %s", l.id[:8], l.name, why)
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
	if l := a.leases[id]; l != nil && l.pool == pc {
		a.remember(id, "its pool connection closed")
		a.counters.disconnected++
		a.endLease(id)
	}
}
