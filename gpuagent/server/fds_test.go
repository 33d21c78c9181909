//go:build linux

package server_test

// This file counts open descriptors in both processes across 1,000 cycles
// of the pool growing and shrinking, with the child's client losing its
// lease every hundredth cycle (it refuses to map) and mapping again.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

func TestPoolDescriptorsDoNotLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 growth cycles across two processes")
	}
	sh := startShared(t)
	d := openLease(t, sh.addr)
	child := startChild(t, sh.addr)
	cycle(t, sh, d) // the steady commit: grown once and shrunk back
	parent0, child0 := gpuagenttest.OpenFDs(t), child.fds("count")
	losses := 0
	for i := range 1000 {
		if i%100 == 50 {
			child.fds("fail")
		}
		cycle(t, sh, d)
		if i%100 == 50 {
			child.fds("reconnect")
			losses++
		}
	}
	st := sh.a.Stats()
	// A refusal is a loss, unless the client hung up before the agent
	// read it: then it is a disconnect.
	if st.Lost == 0 || st.Lost+st.Dropped < uint64(losses) || st.Sharing.Clients != 1 || st.Sharing.Maps < 1000 {
		t.Errorf("lost %d leases, %d disconnected, %d clients, %d map pushes; want %d lost or disconnected, 1, >= 1000",
			st.Lost, st.Dropped, st.Sharing.Clients, st.Sharing.Maps, losses)
	}
	if n := child.fds("count"); n != child0 {
		t.Errorf("the child holds %d descriptors after the cycles, %d before", n, child0)
	}
	eventually(t, "the parent's descriptors back to the start", func() bool { return gpuagenttest.OpenFDs(t) == parent0 })
	t.Logf("1000 growth cycles, %d lease losses: %d descriptors in the agent's process, %d in the client's, before and after", losses, parent0, child0)
}

// cycle grows the pool by admitting three sequences at the maximum, frees
// them and lets the pool shrink back.
func cycle(t *testing.T, sh *shared, d *client.Client) {
	t.Helper()
	var seqs []uint64
	for range 3 {
		r, err := d.Admit(1024, 1024)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, r.Seq)
	}
	for _, s := range seqs {
		if err := d.Free(s); err != nil {
			t.Fatal(err)
		}
	}
	if sh.idle() == 0 {
		t.Fatal("the pool did not shrink")
	}
}

// childProc is the test binary run as a mapping client.
type childProc struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

func startChild(t *testing.T, addr string) *childProc {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "GPUAGENT_POOL_CHILD="+addr)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &childProc{t: t, in: in, out: bufio.NewScanner(out)}
	c.fds("") // ready
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	})
	return c
}

func (c *childProc) send(cmd string) { fmt.Fprintln(c.in, cmd) }

// fds sends cmd (none when empty) and returns the descriptor count the
// child answers with.
func (c *childProc) fds(cmd string) int {
	c.t.Helper()
	if cmd != "" {
		c.send(cmd)
	}
	if !c.out.Scan() {
		c.t.Fatalf("child: no answer to %q", cmd)
	}
	var n int
	if _, err := fmt.Sscanf(c.out.Text(), "fds %d", &n); err != nil {
		c.t.Fatalf("child answered %q", c.out.Text())
	}
	return n
}

// refusing is a FileImporter that fails its next Map when armed.
type refusing struct {
	*gpuagenttest.FileImporter
	armed *atomic.Bool
}

func (r refusing) Map(fd int, off, size int64) error {
	if r.armed.CompareAndSwap(true, false) {
		return errors.New("the test's child refuses to map")
	}
	return r.FileImporter.Map(fd, off, size)
}

// poolChild is the second process: it maps the pool at addr and answers
// commands on stdin until it closes.
func poolChild(addr string) int {
	var armed atomic.Bool
	connect := func() (*client.Client, *client.Pool, error) {
		c, err := client.Dial(context.Background(), addr)
		if err != nil {
			return nil, nil, err
		}
		if _, err := c.Open(time.Minute, "fd-child"); err != nil {
			return nil, nil, err
		}
		p, err := c.MapPool(context.Background(), refusing{gpuagenttest.NewFileImporter(), &armed})
		return c, p, err
	}
	c, p, err := connect()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	fmt.Printf("fds %d\n", fdCount())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch strings.TrimSpace(in.Text()) {
		case "fail":
			armed.Store(true)
			fmt.Printf("fds %d\n", fdCount())
		case "reconnect":
			for i := 0; p.Err() == nil && i < 500; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			p.Close()
			c.Close()
			if c, p, err = connect(); err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				return 1
			}
			fmt.Printf("fds %d\n", fdCount())
		case "count":
			fmt.Printf("fds %d\n", fdCount())
		}
	}
	p.Close()
	c.Close()
	return 0
}

func fdCount() int {
	es, _ := os.ReadDir("/proc/self/fd")
	return len(es) - 1
}
