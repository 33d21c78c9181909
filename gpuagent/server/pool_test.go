//go:build linux

package server_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/planner"
)

// clock is a settable agent clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// shared is an agent on a fake backend that exports the KV pool, served
// on a fresh Unix socket, with a clock the test moves.
type shared struct {
	addr  string
	a     *agent.Agent
	f     *gpuagenttest.Fake
	clock *clock
}

func startShared(t testing.TB) *shared {
	t.Helper()
	data, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	m := agent.CalibratedMeasurement(&p)
	g := backend.NewPhaseGuard()
	g.Logf = func(string, ...any) {}
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used, Quarantine: -1, Guard: g,
		Chunk: backend.Bytes(p.KV.CommitChunk), Export: true})
	sh := &shared{f: f, clock: &clock{t: time.Unix(1e9, 0)}}
	cfg := agent.Config{Logf: func(string, ...any) {}, Now: sh.clock.now, MapTimeout: 10 * time.Second}
	if sh.a, err = agent.Load(p, f, g, agent.StaticDevice{M: m, B: f}, cfg); err != nil {
		t.Fatal(err)
	}
	sh.addr = "unix:" + filepath.Join(t.TempDir(), "ga.sock")
	l, err := server.Listen(sh.addr)
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(sh.a, server.Config{ReapEvery: time.Hour})
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
		sh.a.Close()
		if n := f.Stats().Committed; n != 0 {
			t.Errorf("after Close the backend holds %v", n)
		}
	})
	return sh
}

// idle lets the hysteresis pass with no step and sweeps.
func (sh *shared) idle() backend.Bytes {
	sh.a.Shrink()
	sh.clock.advance(time.Hour)
	return sh.a.Shrink()
}

func mapPool(t testing.TB, c *client.Client) (*client.Pool, *gpuagenttest.FileImporter) {
	t.Helper()
	im := gpuagenttest.NewFileImporter()
	p, err := c.MapPool(context.Background(), im)
	if err != nil {
		t.Fatal(err)
	}
	return p, im
}

func pattern(block int32, n int64) []byte {
	return bytes.Repeat([]byte{byte(block), byte(block >> 8), 0xA5, 0x5A}, int(n/4))
}

// TestPoolIsSharedMemory maps the pool in two leases, grows it tenfold by
// admitting, writes every block a lease was given through its mapping and
// reads it back from the agent's memory and from the other lease's
// mapping (shared prefix blocks), then stops the load and checks the pool
// shrinks back, in the agent and in both mappings.
func TestPoolIsSharedMemory(t *testing.T) {
	sh := startShared(t)
	a, b := openLease(t, sh.addr), openLease(t, sh.addr)
	pa, ima := mapPool(t, a)
	pb, imb := mapPool(t, b)
	lay := pa.Layout
	initial := sh.a.Stats().KV.Committed
	if lay.BlockBytes != 65536 || lay.Blocks != 2048 || pa.Mapped() != int64(initial) || len(lay.Layers) == 0 {
		t.Fatalf("layout %+v, mapped %d; want 2048 blocks of 64 KiB, the initial %v mapped, layers laid out", lay, pa.Mapped(), initial)
	}
	hashes := []uint64{1, 2, 3, 4}
	var seqs []uint64
	for i := range 10 {
		r, err := a.Admit(1024, 1024, hashes...)
		if err != nil {
			t.Fatalf("admit %d: %v", i, err)
		}
		seqs = append(seqs, r.Seq)
		for _, blk := range r.Blocks {
			writeBlock(t, sh, pa, ima, blk)
		}
	}
	st := sh.a.Stats()
	// b was handed nothing: its client maps the growth as it gets to it.
	eventually(t, "b's client maps the growth", func() bool { return pb.Mapped() == int64(st.KV.Committed) })
	if st.KV.Committed < 10*initial || pa.Mapped() != int64(st.KV.Committed) || pb.Mapped() != int64(st.KV.Committed) {
		t.Fatalf("committed %v (initial %v), mapped %d and %d; want 10x, mapped in both", st.KV.Committed, initial, pa.Mapped(), pb.Mapped())
	}
	a.Free(seqs[0])                      // its sealed blocks move into the prefix cache
	r, err := b.Admit(64, 64, hashes...) // the shared prefix: 4 blocks A wrote
	if err != nil || r.Hits != 4 {
		t.Fatalf("b's admit = %+v, %v; want 4 prefix hits", r, err)
	}
	for _, blk := range r.Blocks {
		got := make([]byte, lay.BlockBytes)
		if err := imb.Read(got, int64(pb.Addr(blk)-pb.Base)); err != nil || !bytes.Equal(got, pattern(blk, lay.BlockBytes)) {
			t.Errorf("b reads shared block %d: %v, not what a wrote", blk, err)
		}
	}
	b.Free(r.Seq)
	for _, s := range seqs[1:] {
		a.Free(s)
	}
	back := sh.idle()
	st = sh.a.Stats()
	if back == 0 || st.KV.Committed > initial+backend.Bytes(lay.Chunk) || pa.Mapped() != int64(st.KV.Committed) || pb.Mapped() != int64(st.KV.Committed) {
		t.Errorf("after the load stopped: gave back %v, committed %v (initial %v), mapped %d and %d", back, st.KV.Committed, initial, pa.Mapped(), pb.Mapped())
	}
	if len(st.SteadyState) != 0 || st.KV.Decommits == 0 || st.Sharing.Clients != 2 {
		t.Errorf("steady-state %v, decommits %d, clients %d; want none, some, 2", st.SteadyState, st.KV.Decommits, st.Sharing.Clients)
	}
}

// writeBlock writes block blk through the client's mapping and checks the
// agent's memory holds it.
func writeBlock(t *testing.T, sh *shared, p *client.Pool, im *gpuagenttest.FileImporter, blk int32) {
	t.Helper()
	want := pattern(blk, p.Layout.BlockBytes)
	if err := im.Write(int64(p.Addr(blk)-p.Base), want); err != nil {
		t.Fatalf("block %d not mapped on the client's side: %v", blk, err)
	}
	off := p.Addr(blk) - p.Base
	got, ok := sh.f.Device().Read(sh.a.KVBase()+backend.Addr(off), backend.Bytes(len(want)))
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("block %d: the agent's memory does not hold what the client wrote", blk)
	}
}

// stalling is a FileImporter whose Map, once armed, waits for the gate:
// a client that stops answering the agent's pool messages.
type stalling struct {
	*gpuagenttest.FileImporter
	armed *atomic.Bool
	gate  chan struct{}
}

func (s stalling) Map(fd int, off, size int64) error {
	if s.armed.Load() {
		<-s.gate
	}
	return s.FileImporter.Map(fd, off, size)
}

// TestStalledPoolClient holds issue 31's point 1 over the socket: one
// lease's pool client maps the pool and then stops answering; another
// lease grows the pool ten times, writing every block it is given through
// its own mapping, and all of it happens inside the stalled client's map
// timeout (10 s here): the stalled lease is still open after the ten steps.
// Before, the agent waited for every client holding its lock, and the
// victim's first growth waited out the timeout (4 steps in 20 s, then lost
// connections, in the red team's run).
func TestStalledPoolClient(t *testing.T) {
	sh := startShared(t)
	stall, victim := openLease(t, sh.addr), openLease(t, sh.addr)
	var armed atomic.Bool
	gate := make(chan struct{})
	ps, err := stall.MapPool(context.Background(), stalling{gpuagenttest.NewFileImporter(), &armed, gate})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(gate)
		ps.Close()
	}()
	armed.Store(true)
	pv, imv := mapPool(t, victim)
	initial := sh.a.Stats().KV.Committed
	for i := range 10 {
		r, err := victim.Admit(1024, 1024)
		if err != nil {
			t.Fatalf("victim's admit %d: %v", i, err)
		}
		for _, blk := range r.Blocks {
			writeBlock(t, sh, pv, imv, blk)
		}
	}
	if st := sh.a.Stats(); st.KV.Committed < 5*initial {
		t.Fatalf("committed %v of an initial %v: the victim's admissions did not grow the pool", st.KV.Committed, initial)
	}
	if err := stall.Renew(); err != nil || ps.Err() != nil {
		t.Errorf("the stalled lease ended before the victim's ten growths were done (%v, %v): they waited for its client", err, ps.Err())
	}
}
