package server_test

import (
	"context"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/soak"
)

// TestSoak is criteria 3 and 4 over the wire: 100k operations from 32
// clients, heavy on cancellation and disconnects; afterwards every lease
// and sequence is gone, live blocks are back at the post-load baseline,
// nothing was acquired while serving and the KV base never moved.
func TestSoak(t *testing.T) {
	ops := 100_000
	if testing.Short() {
		ops = 20_000
	}
	addr, _ := start(t, tiny, agent.Config{}, server.Config{})
	res, err := soak.Run(context.Background(), soak.Config{Addr: addr, Clients: 32, Ops: ops, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
	if res.Disconnects < 100 || res.Frees < int64(ops)/20 || res.Forks == 0 || res.Refused == 0 {
		t.Errorf("soak too gentle: %v", res)
	}
	if res.After.KV.Commits <= res.Before.KV.Commits {
		t.Errorf("the KV pool never grew: commits %d -> %d", res.Before.KV.Commits, res.After.KV.Commits)
	}
}

// BenchmarkStep256 times one decode step of 256 sequences over the Unix
// socket: the round trip an engine's scheduler pays per step.
func BenchmarkStep256(b *testing.B) {
	for _, f := range []soak.Form{soak.JSON, soak.Binary} {
		b.Run(f.String(), func(b *testing.B) {
			addr, _ := start(b, "testdata/bench.plan.json", agent.Config{}, server.Config{})
			b.ResetTimer()
			l, err := soak.MeasureStep(context.Background(), soak.Config{Addr: addr}, f, 256, b.N)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(l.P50.Microseconds()), "p50-µs")
			b.ReportMetric(float64(l.P99.Microseconds()), "p99-µs")
		})
	}
}

func TestStep256Latency(t *testing.T) {
	for _, f := range []soak.Form{soak.JSON, soak.Binary} {
		addr, _ := start(t, "testdata/bench.plan.json", agent.Config{}, server.Config{})
		l, err := soak.MeasureStep(context.Background(), soak.Config{Addr: addr}, f, 256, 2000)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(l)
	}
}
