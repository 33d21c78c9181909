package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/planner"
)

// layoutPlan writes a TP2 × PP2 plan of the tiny model and returns its path.
func layoutPlan(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../gpuagent/agent/testdata/tiny.input.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	in.Parallel = planner.Parallel{Tensor: 2, Pipeline: 2}
	p, err := planner.Report(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "layout.plan.json")
	if err := os.WriteFile(path, p.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeLayoutRefusals checks that a layout plan needs --rank, and a
// rank inside the layout.
func TestServeLayoutRefusals(t *testing.T) {
	plan := layoutPlan(t)
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"serve", "--plan", plan, "--backend", "fake"}, "--rank is required"},
		{[]string{"serve", "--plan", plan, "--backend", "fake", "--rank", "4"}, "has ranks 0-3"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--rank", "1"}, "single-GPU plan"},
	} {
		var out bytes.Buffer
		if code := run(c.args, &out, &out); code != exitUsage || !strings.Contains(out.String(), c.out) {
			t.Errorf("run(%q) = %d, %q; want %d and %q", c.args, code, out.String(), exitUsage, c.out)
		}
	}
}

// TestServeLayout runs a whole TP2 × PP2 layout on the fake backend, one
// agent per rank as on four GPUs: each serves its rank's plan, answers its
// report and a soak, and stops on the signal.
func TestServeLayout(t *testing.T) {
	plan := layoutPlan(t)
	dir := t.TempDir()
	const n = 4
	outs := make([]bytes.Buffer, n)
	errs := make([]bytes.Buffer, n)
	done := make(chan int, n)
	for r := 0; r < n; r++ {
		args := []string{"serve", "--plan", plan, "--rank", fmt.Sprint(r), "--device", fmt.Sprint(r), "--backend", "fake",
			"--listen", "unix:" + filepath.Join(dir, fmt.Sprintf("rank%d.sock", r))}
		go func() { done <- run(args, &outs[r], &errs[r]) }()
	}
	for r := 0; r < n; r++ {
		sock := "unix:" + filepath.Join(dir, fmt.Sprintf("rank%d.sock", r))
		waitSocket(t, strings.TrimPrefix(sock, "unix:"), &errs[r])
		var out bytes.Buffer
		if code := run([]string{"report", "--listen", sock}, &out, &out); code != exitOK || !strings.Contains(out.String(), "attribution") {
			t.Errorf("rank %d: report = %d\n%s", r, code, out.String())
		}
		out.Reset()
		if code := run([]string{"soak", "--listen", sock, "--ops", "2000", "--clients", "4"}, &out, &out); code != exitOK {
			t.Errorf("rank %d: soak = %d\n%s", r, code, out.String())
		}
	}
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Interrupt)
	for r := 0; r < n; r++ {
		if code := <-done; code != exitOK {
			t.Errorf("a serve exited %d", code)
		}
	}
	for r := 0; r < n; r++ {
		want := fmt.Sprintf("rank %d of 4 (tensor_parallel 2 × pipeline_parallel 2): stage %d", r, r/2)
		if !strings.Contains(outs[r].String(), want) {
			t.Errorf("rank %d announced\n%s\nwant %q (stderr %s)", r, outs[r].String(), want, errs[r].String())
		}
	}
}

// waitSocket dials rather than stats: the socket file appears at bind,
// before listen, and a connection in between is refused.
func waitSocket(t *testing.T, path string, stderr *bytes.Buffer) {
	t.Helper()
	for i := 0; ; i++ {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return
		}
		if i == 500 {
			t.Fatalf("no socket %s after 5 s: %s", path, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
