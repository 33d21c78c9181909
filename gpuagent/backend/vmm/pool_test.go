//go:build linux

package vmm_test

// These tests hold issue 31's pool points on the device: an agent on this
// backend exports its KV pool's chunks, engine processes' Importers map
// them, and one client that stops answering delays no other lease's
// growth, its unmaps hold back no lease's blocks, and its pool connection
// closing with a message in flight ends its lease alone. The fake's tests
// (agent, server) hold the same rules; these run them through the driver's
// export, import, map, unmap and decommit.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/vmm"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/planner"
)

// poolRig is an agent on the VMM backend with its KV pool exportable,
// loading the agent's tiny plan (2 MiB chunks of 64 KiB blocks), served on
// a fresh Unix socket, with a clock the test moves.
type poolRig struct {
	t    *testing.T
	addr string
	a    *agent.Agent
	mu   sync.Mutex
	now  time.Time
}

func newPoolRig(t *testing.T) *poolRig {
	data, err := os.ReadFile("../../agent/testdata/tiny.plan.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	g := backend.NewPhaseGuard()
	g.Logf = func(string, ...any) {}
	b := open(t, vmm.Options{Guard: g, Chunk: backend.Bytes(p.KV.CommitChunk), Hysteresis: -1, ExportPOSIXFD: true})
	r := &poolRig{t: t, now: time.Unix(1e9, 0)}
	cfg := agent.Config{Logf: t.Logf, Now: r.clock, MapTimeout: 30 * time.Second}
	if r.a, err = agent.Load(p, b, g, agent.StaticDevice{M: agent.CalibratedMeasurement(&p), B: b}, cfg); err != nil {
		t.Fatal(err)
	}
	r.addr = "unix:" + filepath.Join(t.TempDir(), "ga.sock")
	l, err := server.Listen(r.addr)
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(r.a, server.Config{ReapEvery: time.Hour})
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
		r.a.Close()
		if n := b.Stats().Committed; n != 0 {
			t.Errorf("after Close the backend holds %v", n)
		}
	})
	return r
}

func (r *poolRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

// idle lets the shrink's hysteresis pass and sweeps.
func (r *poolRig) idle() backend.Bytes {
	r.a.Shrink()
	r.mu.Lock()
	r.now = r.now.Add(time.Hour)
	r.mu.Unlock()
	return r.a.Shrink()
}

// lease opens a lease on a fresh connection, closed when the test ends.
func (r *poolRig) lease() *client.Client {
	c, err := client.Dial(context.Background(), r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	if _, err := c.Open(0, r.t.Name()); err != nil {
		r.t.Fatal(err)
	}
	return c
}

// gated is a device Importer whose Map or Unmap (as op says), once armed,
// waits for the gate: an engine process that stops answering the agent.
type gated struct {
	*vmm.Importer
	op   string
	mu   sync.Mutex
	gate chan struct{} // nil: not armed
	held chan struct{} // closed when a call first waits at the gate
	once sync.Once
}

func newGated(t *testing.T, op string) *gated {
	im, err := vmm.NewImporter(0)
	if err != nil {
		t.Fatal(err)
	}
	return &gated{Importer: im, op: op, held: make(chan struct{})}
}

func (g *gated) arm() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

func (g *gated) release() {
	g.mu.Lock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
	g.mu.Unlock()
}

func (g *gated) wait(op string) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil && op == g.op {
		g.once.Do(func() { close(g.held) })
		<-gate
	}
}

func (g *gated) Map(fd int, off, size int64) error {
	g.wait("map")
	return g.Importer.Map(fd, off, size)
}

func (g *gated) Unmap(off, size int64) error {
	g.wait("unmap")
	return g.Importer.Unmap(off, size)
}

// mapPool maps the pool for c through im.
func mapPool(t *testing.T, c *client.Client, im client.Importer) *client.Pool {
	p, err := c.MapPool(context.Background(), im)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func pattern(block int32, n int64) []byte {
	return bytes.Repeat([]byte{byte(block), byte(block >> 8), 0xA5, 0x5A}, int(n/4))
}

// grow admits n sequences of 1,024 tokens for c, each of which commits new
// chunks, writing every block it is handed through im's mapping of the
// device memory and reading it back. It returns the sequences.
func grow(t *testing.T, c *client.Client, p *client.Pool, im *gated, n int) map[uint64][]int32 {
	t.Helper()
	seqs := map[uint64][]int32{}
	for i := range n {
		res, err := c.Admit(1024, 1024)
		if err != nil {
			t.Fatalf("admit %d: %v", i, err)
		}
		for _, blk := range res.Blocks {
			want := pattern(blk, p.Layout.BlockBytes)
			off := int64(p.Addr(blk) - p.Base)
			got := make([]byte, len(want))
			if err := im.Write(off, want); err != nil {
				t.Fatalf("block %d is not mapped in the client it was handed to: %v", blk, err)
			}
			if err := im.Read(got, off); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("block %d reads back %v: not what was written", blk, err)
			}
		}
		seqs[res.Seq] = res.Blocks
	}
	return seqs
}

// eventually polls cond for up to ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	gpuagenttest.Eventually(t, what, 10*time.Second, cond)
}

// TestPoolStalledClient is point 1 on the device: one lease's engine stops
// mapping, and another lease grows the pool ten times over, writing every
// block it is handed in device memory, while the stalled client still
// holds its first map message (its map timeout is 30 s; before the fix
// the victim's first growth waited it out). Once the stalled client goes
// on it maps every chunk and reads what the victim wrote, and when the
// load stops the pool shrinks back in the agent and in both mappings.
func TestPoolStalledClient(t *testing.T) {
	r := newPoolRig(t)
	stall, victim := r.lease(), r.lease()
	ims, imv := newGated(t, "map"), newGated(t, "")
	ps, pv := mapPool(t, stall, ims), mapPool(t, victim, imv)
	initial := r.a.Stats().KV.Committed
	ims.arm()
	seqs := grow(t, victim, pv, imv, 10)
	<-ims.held
	st := r.a.Stats()
	if st.KV.Committed < 5*initial {
		t.Fatalf("committed %v of an initial %v: the victim's admissions did not grow the pool", st.KV.Committed, initial)
	}
	if err := stall.Renew(); err != nil || ps.Err() != nil {
		t.Fatalf("the stalled lease ended before the victim's growth was done (%v, %v)", err, ps.Err())
	}
	ims.release()
	eventually(t, "the stalled client maps the growth", func() bool { return ps.Mapped() == int64(st.KV.Committed) })
	for _, blocks := range seqs {
		for _, blk := range blocks {
			want := pattern(blk, ps.Layout.BlockBytes)
			got := make([]byte, len(want))
			if err := ims.Read(got, int64(ps.Addr(blk)-ps.Base)); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("block %d through the other client's mapping: %v, not what the victim wrote", blk, err)
			}
		}
	}
	for s := range seqs {
		if err := victim.Free(s); err != nil {
			t.Fatal(err)
		}
	}
	back := r.idle()
	st = r.a.Stats()
	if back == 0 || ps.Mapped() != int64(st.KV.Committed) || pv.Mapped() != int64(st.KV.Committed) {
		t.Errorf("after the load stopped: gave back %v, committed %v, mapped %d and %d", back, st.KV.Committed, ps.Mapped(), pv.Mapped())
	}
}

// TestPoolShrinkWhileUnmapStalls is point 1's shrink on the device: the
// pool shrinks and one client holds the unmap; the victim, needing those
// chunks again, takes them back and writes every block it is handed, and
// once the silent client goes on the shrink gives back only what is free.
func TestPoolShrinkWhileUnmapStalls(t *testing.T) {
	r := newPoolRig(t)
	stall, victim := r.lease(), r.lease()
	ims, imv := newGated(t, "unmap"), newGated(t, "")
	ps, pv := mapPool(t, stall, ims), mapPool(t, victim, imv)
	for s := range grow(t, victim, pv, imv, 6) {
		victim.Free(s)
	}
	grown := r.a.Stats().KV.Committed
	ims.arm()
	r.a.Shrink()
	r.mu.Lock()
	r.now = r.now.Add(time.Hour)
	r.mu.Unlock()
	gave := make(chan backend.Bytes, 1)
	go func() { gave <- r.a.Shrink() }()
	<-ims.held
	grow(t, victim, pv, imv, 6)
	ims.release()
	back := <-gave
	st := r.a.Stats()
	if st.KV.Committed+back > grown || st.Lost != 0 {
		t.Errorf("committed %v after giving back %v of %v grown, %d leases lost; want the victim's blocks kept, none lost", st.KV.Committed, back, grown, st.Lost)
	}
	eventually(t, "both clients follow the pool", func() bool {
		n := int64(r.a.Stats().KV.Committed)
		return ps.Mapped() == n && pv.Mapped() == n
	})
}

// TestPoolClosedMidMap is point 16's pool part on the device: a client's
// pool connection closes while a map message is in flight; its lease ends
// as a disconnect, the victim's goes on growing, and the chunks its
// mapping held are the agent's to give back.
func TestPoolClosedMidMap(t *testing.T) {
	r := newPoolRig(t)
	stall, victim := r.lease(), r.lease()
	ims, imv := newGated(t, "map"), newGated(t, "")
	ps, pv := mapPool(t, stall, ims), mapPool(t, victim, imv)
	ims.arm()
	seqs := grow(t, victim, pv, imv, 4)
	<-ims.held
	closed := make(chan struct{})
	go func() { ps.Close(); close(closed) }()
	eventually(t, "the closed pool connection ends its lease", func() bool { return stall.Renew() != nil })
	ims.release()
	<-closed
	for s := range grow(t, victim, pv, imv, 4) {
		seqs[s] = nil
	}
	if st := r.a.Stats(); st.Dropped != 1 || st.Lost != 0 || st.Sharing.Clients != 1 {
		t.Errorf("disconnected %d, lost %d, %d clients map the pool; want 1, 0, 1", st.Dropped, st.Lost, st.Sharing.Clients)
	}
	for s := range seqs {
		victim.Free(s)
	}
	if back := r.idle(); back == 0 || pv.Mapped() != int64(r.a.Stats().KV.Committed) {
		t.Errorf("after the load stopped: gave back %v, the victim maps %d of %v", back, pv.Mapped(), r.a.Stats().KV.Committed)
	}
}
