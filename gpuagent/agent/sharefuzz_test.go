//go:build linux

package agent_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// guarded is the fake backend with a check before every decommit.
type guarded struct {
	*gpuagenttest.Fake
	check func(r *backend.Region, n backend.Bytes)
}

func (g *guarded) Decommit(r *backend.Region, n backend.Bytes) error {
	g.check(r, n)
	return g.Fake.Decommit(r, n)
}

// memClient is a PoolClient in this process mapping the pool's memory
// files, which the test can make refuse.
type memClient struct {
	mu     sync.Mutex
	im     *gpuagenttest.FileImporter
	refuse bool
	closed bool
}

func (c *memClient) Push(msg *wire.PoolMsg, fds []int, _ time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refuse {
		return errors.New("refused by the test")
	}
	if msg.Layout != nil {
		if _, err := c.im.Reserve(msg.Layout.Reserve, msg.Layout.Granularity); err != nil {
			return err
		}
	}
	for i, ch := range msg.Chunks {
		var err error
		if msg.Op == wire.PoolMap {
			err = c.im.Map(fds[i], ch.Offset, ch.Size)
		} else {
			err = c.im.Unmap(ch.Offset, ch.Size)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *memClient) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.im.Close()
}

// maps reports whether the client maps every chunk of [off, off+n).
func (c *memClient) maps(off, n, chunk int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.im.Mapped()
	for at := off / chunk * chunk; at < off+n; at += chunk {
		if _, ok := slices.BinarySearch(got, at); !ok {
			return false
		}
	}
	return true
}

// shareRig is an agent sharing its pool with in-process clients, and a
// model of which blocks each lease's sequences hold.
type shareRig struct {
	t      *testing.T
	a      *agent.Agent
	now    time.Time
	stride int64
	chunk  int64
	leases []*modelLease
}

type modelLease struct {
	id     string
	conn   agent.Conn
	client *memClient
	seqs   map[uint64][]int32
}

// newShareRig loads the tiny plan on a fake backend that exports the KV
// pool; mapTimeout 0 is the agent's default.
func newShareRig(t *testing.T, mapTimeout time.Duration) *shareRig {
	p := readPlan(t, "tiny")
	m := agent.CalibratedMeasurement(&p)
	g := backend.NewPhaseGuard()
	g.Logf = func(string, ...any) {}
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used, Quarantine: -1, Guard: g,
		Chunk: backend.Bytes(p.KV.CommitChunk), Export: true})
	r := &shareRig{t: t, now: time.Unix(1e9, 0), stride: int64(p.KV.BlockBytes), chunk: int64(p.KV.CommitChunk)}
	b := &guarded{Fake: f, check: r.checkDecommit}
	cfg := agent.Config{Logf: func(string, ...any) {}, Now: func() time.Time { return r.now }, MapTimeout: mapTimeout}
	a, err := agent.Load(p, b, g, agent.StaticDevice{M: m, B: f}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.a = a
	t.Cleanup(func() {
		a.Close()
		if n := f.Stats().Committed; n != 0 {
			t.Errorf("after Close the backend holds %v", n)
		}
	})
	return r
}

// checkDecommit fails the test if a decommit to n would take a block a
// sequence holds, or a chunk a client still maps.
func (r *shareRig) checkDecommit(reg *backend.Region, n backend.Bytes) {
	if reg.Tag() != backend.TagKVPool {
		return
	}
	for _, l := range r.leases {
		if l.client != nil && !l.client.closed {
			if got := l.client.im.Mapped(); len(got) > 0 && got[len(got)-1] >= int64(n) {
				r.t.Errorf("decommit to %v while lease %s's client maps the chunk at %d", n, l.id[:6], got[len(got)-1])
			}
		}
		for h, blocks := range l.seqs {
			for _, b := range blocks {
				if int64(b)*r.stride > int64(n) {
					r.t.Errorf("decommit to %v under block %d of sequence %d", n, b, h)
				}
			}
		}
	}
}

// FuzzSharedPool replays random admissions, appends, forks, frees,
// clients mapping and refusing to map, lease ends and sweeps against a
// pool shared with in-process clients: no decommit ever takes a block in
// use or a chunk a client still maps, every block a mapping lease is
// handed is mapped on its side, and the pool shrinks back once idle.
func FuzzSharedPool(f *testing.F) {
	f.Add([]byte{7, 0, 0, 0, 60, 1, 0, 90, 2, 1, 0, 9, 0, 8, 0, 1, 3, 0, 10, 0})
	f.Add([]byte{7, 0, 7, 1, 0, 0, 200, 6, 1, 0, 1, 250, 4, 0, 9, 0, 0, 1, 30, 10, 0, 3, 0, 3, 1, 10, 1})
	f.Fuzz(sharedPoolProgram)
}

func sharedPoolProgram(t *testing.T, prog []byte) {
	{
		r := newShareRig(t, 0)
		for i := 0; i < 3; i++ {
			r.openLease()
		}
		for i := 0; i+2 < len(prog); i += 3 {
			r.op(prog[i]%11, int(prog[i+1])%len(r.leases), int(prog[i+2]))
		}
		for _, l := range r.leases {
			for h := range l.seqs {
				r.step(l, wire.Op{Op: wire.OpFree, Seq: h})
			}
		}
		r.a.Shrink()
		r.now = r.now.Add(time.Hour)
		r.a.Shrink()
		if s := r.a.Stats(); s.KV.Committed > backend.Bytes(r.a.Plan().KV.InitialCommit)+backend.Bytes(2*r.chunk) || len(s.SteadyState) != 0 {
			t.Errorf("idle pool: committed %v (initial %v), steady-state %v; %+v", s.KV.Committed, r.a.Plan().KV.InitialCommit, s.SteadyState, s.KV)
		}
	}
}

func (r *shareRig) openLease() {
	conn := agent.Conn(len(r.leases) + 1)
	l, err := r.a.OpenLease(conn, wire.OpenLease{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.leases = append(r.leases, &modelLease{id: l.Lease, conn: conn, seqs: map[uint64][]int32{}})
}

func (r *shareRig) op(op byte, who, arg int) {
	l := r.leases[who]
	var any uint64
	for h := range l.seqs {
		any = h
		break
	}
	switch op {
	case 0, 1:
		r.step(l, wire.Op{Op: wire.OpAdmit, MaxTokens: 16 + arg*4, Tokens: arg * 4, Hashes: hashes(arg)})
	case 2:
		r.step(l, wire.Op{Op: wire.OpAppend, Seq: any, Tokens: arg % 64})
	case 3:
		r.step(l, wire.Op{Op: wire.OpFork, Seq: any})
	case 4, 5:
		r.step(l, wire.Op{Op: wire.OpFree, Seq: any})
	case 6:
		r.attach(l, arg%4 == 0)
	case 7:
		r.attach(l, false)
	case 8:
		r.a.CloseLease(l.conn, l.id)
		r.sync()
		r.leases[who] = r.leases[len(r.leases)-1]
		r.leases = r.leases[:len(r.leases)-1]
		r.openLease()
	case 9:
		r.now = r.now.Add(time.Duration(arg) * 10 * time.Millisecond)
		r.a.Shrink()
		r.sync()
	case 10:
		r.now = r.now.Add(time.Hour)
		r.a.Shrink()
		r.sync()
	}
}

// hashes gives an admission of arg*4 tokens the content hashes of one of
// three shared prefixes.
func hashes(arg int) []uint64 {
	n := min(arg*4/16, 3)
	h := make([]uint64, n)
	for i := range h {
		h[i] = uint64(arg%3)<<8 | uint64(i+1)
	}
	return h
}

// attach maps the pool for l with a new client, which refuses the next
// growth when refuse is set.
func (r *shareRig) attach(l *modelLease, refuse bool) {
	if l.client != nil {
		l.client.mu.Lock()
		l.client.refuse = refuse
		l.client.mu.Unlock()
		return
	}
	c := &memClient{im: gpuagenttest.NewFileImporter()}
	if err := r.a.AttachPool(l.id, c); err != nil {
		r.t.Fatalf("AttachPool = %v", err)
	}
	l.client = c
	c.mu.Lock()
	c.refuse = refuse
	c.mu.Unlock()
}

// step applies ops for l and records what its sequences hold; it checks
// that a mapping lease was handed only blocks it maps.
func (r *shareRig) step(l *modelLease, op wire.Op) {
	res, err := r.a.Step(l.conn, &wire.Step{Lease: l.id, Ops: []wire.Op{op}}, nil)
	if err != nil {
		r.sync()
		return
	}
	for _, res := range res.Results {
		if res.Error != nil {
			continue
		}
		switch op.Op {
		case wire.OpAdmit, wire.OpFork:
			l.seqs[res.Seq] = res.Blocks
		case wire.OpAppend:
			l.seqs[op.Seq] = append(l.seqs[op.Seq], res.Blocks...)
		case wire.OpFree:
			delete(l.seqs, op.Seq)
		}
		r.checkMapped(l, res.Blocks)
	}
	r.sync()
}

func (r *shareRig) checkMapped(l *modelLease, blocks []int32) {
	if l.client == nil || l.client.closed {
		return
	}
	for _, b := range blocks {
		if b > 0 && !l.client.maps(int64(b-1)*r.stride, r.stride, r.chunk) {
			r.t.Fatalf("lease %s was handed block %d, which its client does not map", l.id[:6], b)
		}
	}
}

// sync drops from the model the leases the agent ended (their clients
// could not map), replacing each with a new one.
func (r *shareRig) sync() {
	for i, l := range r.leases {
		if _, err := r.a.Renew(l.conn, l.id); err != nil {
			if err.Code != wire.CodeNoLease {
				r.t.Fatal(err)
			}
			if l.client != nil && !l.client.closed {
				r.t.Fatalf("lease %s ended and its client is open", l.id[:6])
			}
			conn := agent.Conn(1000 + i + len(r.leases)*int(r.now.UnixNano()%1000))
			nl, err := r.a.OpenLease(conn, wire.OpenLease{})
			if err != nil {
				r.t.Fatal(fmt.Errorf("reopen: %w", err))
			}
			r.leases[i] = &modelLease{id: nl.Lease, conn: conn, seqs: map[uint64][]int32{}}
		}
	}
}

// TestSharedPoolRandom runs FuzzSharedPool's body over programs from a
// seeded generator, so every go test explores beyond the seed corpus.
func TestSharedPoolRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	for range 100 {
		prog := make([]byte, 3*(20+rng.IntN(200)))
		for i := range prog {
			prog[i] = byte(rng.UintN(256))
		}
		t.Run("", func(t *testing.T) { sharedPoolProgram(t, prog) })
	}
}
