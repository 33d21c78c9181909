package client_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

// serveTiny serves the agent tests' tiny plan on a fake backend and
// returns its address and a function that stops it.
func serveTiny() (string, func()) {
	data, _ := os.ReadFile("../agent/testdata/tiny.plan.json")
	p, _ := planner.ParsePlan(data)
	m := agent.CalibratedMeasurement(&p)
	g := backend.NewPhaseGuard()
	g.Logf = func(string, ...any) {}
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used, Quarantine: -1, Guard: g})
	a, _ := agent.Load(p, f, g, agent.StaticDevice{M: m, B: f}, agent.Config{Logf: func(string, ...any) {}})
	dir, _ := os.MkdirTemp("", "gpuagent")
	addr := "unix:" + filepath.Join(dir, "ga.sock")
	l, _ := server.Listen(addr)
	s := server.New(a, server.Config{})
	go s.Serve(l)
	return addr, func() { s.Shutdown(context.Background()); a.Close(); os.RemoveAll(dir) }
}

// An engine opens a lease, admits a prompt, decodes a step and forks.
func Example() {
	addr, stop := serveTiny()
	defer stop()

	c, err := client.Dial(context.Background(), addr)
	if err != nil {
		panic(err)
	}
	defer c.Close() // ends the lease: everything it holds is released
	lease, _ := c.Open(0, "example-engine")
	fmt.Println("block tokens:", lease.Limits.BlockTokens, "max batch:", lease.Limits.MaxBatch)

	// A 40-token prompt whose two full blocks have known content hashes.
	seq, _ := c.Admit(1024, 40, 0xfeed, 0xbeef)
	fmt.Println("prompt blocks:", len(seq.Blocks))

	// One scheduler step: a token for the sequence. Decode is the binary
	// form of a decode step; reusing d and res, a step allocates nothing.
	d := &wire.Decode{Seqs: wire.IDs{seq.Seq}}
	var res wire.DecodeResult
	c.Decode(d, &res)
	fmt.Println("new block this step:", res.Blocks[0] != 0)

	// Best-of-2: the fork shares the full blocks and copies the partial one.
	fork, _ := c.Fork(seq.Seq, 0)
	fmt.Println("fork table:", len(fork.Blocks), "copies:", len(fork.Copies))

	// Fill the pool's promises: 30 more sequences of 1024 tokens.
	fill := &wire.Step{}
	for range 30 {
		fill.Ops = append(fill.Ops, wire.Op{Op: wire.OpAdmit, MaxTokens: 1024})
	}
	c.Step(fill)

	// More than the plan can promise is refused now, not cancelled later.
	_, err = c.Admit(16, 0)
	e := err.(*wire.Error)
	fmt.Println(e.Code, e.Status(), "need", e.NeedBlocks, "available", e.AvailableBlocks, "of", e.PoolBlocks)
	// Output:
	// block tokens: 16 max batch: 32
	// prompt blocks: 3
	// new block this step: false
	// fork table: 3 copies: 1
	// capacity 503 need 1 available 0 of 2048
}
