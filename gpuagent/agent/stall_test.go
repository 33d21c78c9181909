//go:build linux

package agent_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// stallClient is a PoolClient that answers its first messages (the
// mapping) and then holds the next one unanswered until release is
// closed or its deadline passes, as a client that never acknowledges.
type stallClient struct {
	answer   int    // messages answered before it stalls
	stallOn  string // when set: it answers every message until the first of this op
	pushes   int
	release  chan struct{}
	held     chan struct{} // closed when it starts holding a message
	returned chan struct{} // closed when it gives the held message up
	onReturn func()        // called just before, to take the test's counts
	once     sync.Once
}

func newStallClient(answer int) *stallClient {
	return &stallClient{answer: answer, release: make(chan struct{}), held: make(chan struct{}), returned: make(chan struct{})}
}

func (c *stallClient) Push(msg *wire.PoolMsg, _ []int, deadline time.Time) error {
	if c.pushes++; c.pushes <= c.answer || c.stallOn != "" && msg.Op != c.stallOn {
		return nil
	}
	first := false
	c.once.Do(func() { first = true; close(c.held) })
	if !first {
		return errors.New("stalled")
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-c.release:
	case <-t.C:
	}
	if c.onReturn != nil {
		c.onReturn()
	}
	close(c.returned)
	return errors.New("no answer in time")
}

func (c *stallClient) Close() {}

// growAll admits sequences of max_seq_len for l, each of which commits new
// chunks of the pool, counting the steps that succeeded.
func (r *shareRig) growAll(l *modelLease, n int, done *atomic.Int64) {
	for range n {
		res, err := r.a.Step(l.conn, &wire.Step{Lease: l.id, Ops: []wire.Op{{Op: wire.OpAdmit, MaxTokens: 1024, Tokens: 1024}}}, nil)
		if err != nil || res.Results[0].Error != nil {
			r.t.Errorf("victim's admit: %v %v", err, res)
			return
		}
		r.checkMapped(l, res.Results[0].Blocks)
		l.seqs[res.Results[0].Seq] = res.Results[0].Blocks
		done.Add(1)
	}
}

// TestStalledClientStallsNoOneElse holds issue 31's point 1: one lease's
// pool client stops answering, and another lease grows the pool step
// after step meanwhile — every one of its steps completes while the stalled
// client still holds its first unanswered message (before, the agent
// waited for that answer holding its lock, up to --map-timeout a step, and
// the victim completed none). Then the stalled client gives up and loses
// only its own lease, and the victim's client mapped every block it got.
// Counted in steps, not timed: the stalled client is released by the test
// once the victim is done, or by its deadline.
func TestStalledClientStallsNoOneElse(t *testing.T) {
	const steps = 10
	r := newShareRig(t, 20*time.Second)
	r.openLease()
	r.openLease()
	stall, victim := r.leases[0], r.leases[1]
	sc := newStallClient(1) // answers the mapping, then nothing
	if err := r.a.AttachPool(stall.id, sc); err != nil {
		t.Fatal(err)
	}
	r.attach(victim, false)
	var done, atReturn atomic.Int64
	sc.onReturn = func() { atReturn.Store(done.Load()) }
	first := make(chan struct{})
	go func() { // the initial commit holds one; the second grows the pool
		r.growAll(victim, 2, &done)
		close(first)
	}()
	<-sc.held
	<-first
	r.growAll(victim, steps, &done)
	close(sc.release)
	<-sc.returned
	if got := atReturn.Load(); got != steps+2 {
		t.Errorf("the victim completed %d of %d steps while the other lease's client held a message unanswered; want all", got, steps+2)
	}
	waitLost(t, r.a, stall)
	if _, err := r.a.Renew(victim.conn, victim.id); err != nil {
		t.Errorf("the victim's lease after the other client failed: %v", err)
	}
	if s := r.a.Stats(); s.Lost != 1 || s.Sharing.Clients != 1 {
		t.Errorf("lost %d leases, %d clients map the pool; want 1 and 1", s.Lost, s.Sharing.Clients)
	}
}

// TestStalledClientWaitsAlone holds the bound for the stalled client's own
// lease: its step, which needs a chunk its client has not mapped, waits
// for that client alone, and once the client misses --map-timeout it ends
// with the lease's loss named. Meanwhile the victim's steps go on. The
// wait is held to 20 map timeouts, which only a hang breaks.
func TestStalledClientWaitsAlone(t *testing.T) {
	const mapTimeout = 300 * time.Millisecond
	r := newShareRig(t, mapTimeout)
	r.openLease()
	r.openLease()
	stall, victim := r.leases[0], r.leases[1]
	sc := newStallClient(1)
	if err := r.a.AttachPool(stall.id, sc); err != nil {
		t.Fatal(err)
	}
	r.attach(victim, false)
	var done atomic.Int64
	r.growAll(victim, 2, &done) // the stalled client now holds the growth
	<-sc.held
	ended := make(chan *wire.Error, 1)
	go func() {
		res, err := r.a.Step(stall.conn, &wire.Step{Lease: stall.id, Ops: []wire.Op{{Op: wire.OpAdmit, MaxTokens: 1024, Tokens: 1024}}}, nil)
		if err == nil {
			err = res.Results[0].Error
		}
		ended <- err
	}()
	r.growAll(victim, 5, &done)
	select {
	case err := <-ended:
		if err == nil || err.Code != wire.CodeNoLease || !strings.Contains(err.Message, "did not answer") {
			t.Errorf("the stalled lease's step = %v, want no_lease naming the unanswered message", err)
		}
	case <-time.After(20 * mapTimeout):
		t.Fatalf("the stalled lease's step still waits after 20 map timeouts")
	}
	if done.Load() != 7 {
		t.Errorf("the victim completed %d of 7 steps", done.Load())
	}
}

// waitLost waits until l's lease has ended, as its client's failure ends
// it from the client's goroutine.
func waitLost(t *testing.T, a *agent.Agent, l *modelLease) {
	t.Helper()
	for i := 0; ; i++ {
		_, err := a.Renew(l.conn, l.id)
		if err != nil && strings.Contains(err.Message, "did not answer") {
			return
		}
		if i == 2000 {
			t.Fatalf("the stalled lease did not end: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestShrinkWhileUnmapStalls holds the shrink's side of point 1: the
// pool is shrinking and one client holds the unmap unanswered; another
// lease that needs the chunks being given back takes them back (they are
// mapped again for every client) and completes every step meanwhile, its
// client mapping each block it is handed. Once the silent client gives up
// and loses its lease, the shrink gives back only what is still free
// (the rig's backend fails the test on a decommit under a held block).
func TestShrinkWhileUnmapStalls(t *testing.T) {
	const steps = 6
	r := newShareRig(t, 20*time.Second)
	r.openLease()
	r.openLease()
	stall, victim := r.leases[0], r.leases[1]
	sc := newStallClient(0)
	sc.stallOn = wire.PoolUnmap
	if err := r.a.AttachPool(stall.id, sc); err != nil {
		t.Fatal(err)
	}
	r.attach(victim, false)
	var done, atReturn atomic.Int64
	r.growAll(victim, steps, &done)
	grown := r.a.Stats().KV.Committed
	for h := range victim.seqs {
		r.step(victim, wire.Op{Op: wire.OpFree, Seq: h})
	}
	r.a.Shrink()
	r.now = r.now.Add(time.Hour)
	gave := make(chan backend.Bytes, 1)
	go func() { gave <- r.a.Shrink() }()
	<-sc.held
	sc.onReturn = func() { atReturn.Store(done.Load()) }
	done.Store(0)
	r.growAll(victim, steps, &done)
	close(sc.release)
	<-sc.returned
	if got := atReturn.Load(); got != steps {
		t.Errorf("the victim completed %d of %d steps while a shrink waited for a silent client; want all", got, steps)
	}
	back := <-gave
	if st := r.a.Stats(); st.KV.Committed+back > grown || st.Lost != 1 {
		t.Errorf("committed %v after giving back %v of %v grown, %d leases lost; want the held blocks kept, 1 lost", st.KV.Committed, back, grown, st.Lost)
	}
}
