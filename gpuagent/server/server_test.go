package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/planner"
)

// start serves the plan file on a fake backend at a fresh Unix socket and
// returns its address. Everything is torn down, and checked to hold
// nothing, when the test ends.
func start(t testing.TB, planFile string, acfg agent.Config, scfg server.Config) (string, *agent.Agent) {
	t.Helper()
	addr, a, _ := startServer(t, planFile, acfg, scfg)
	return addr, a
}

// startServer is start, returning the server too.
func startServer(t testing.TB, planFile string, acfg agent.Config, scfg server.Config) (string, *agent.Agent, *server.Server) {
	t.Helper()
	data, err := os.ReadFile(planFile)
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
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used, Quarantine: -1, Guard: g})
	acfg.Logf = func(string, ...any) {}
	a, err := agent.Load(p, f, g, agent.StaticDevice{M: m, B: f}, acfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := "unix:" + filepath.Join(t.TempDir(), "ga.sock")
	l, err := server.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(a, scfg)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		a.Close()
		if n := f.Stats().Committed; n != 0 {
			t.Errorf("after Close the backend holds %v", n)
		}
	})
	return addr, a, s
}

const tiny = "../agent/testdata/tiny.plan.json"

func dial(t testing.TB, addr string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func openLease(t testing.TB, addr string) *client.Client {
	t.Helper()
	c := dial(t, addr)
	if _, err := c.Open(0, t.Name()); err != nil {
		t.Fatal(err)
	}
	return c
}

// eventually polls cond for up to two seconds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	gpuagenttest.Eventually(t, what, 2*time.Second, cond)
}
