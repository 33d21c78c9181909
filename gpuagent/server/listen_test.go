package server_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/server"
)

// TestListenOneOfMany holds issue 31's point 11: agents that start at the
// same instant on one socket path, round after round, and exactly one of
// each round listens while the others are told another agent holds the
// path. Without the lock two agents both listened in 1 start of 20 (the
// second unlinked the first's fresh socket). Closing the winner removes the
// socket and its lock file, and a lock file a killed agent left behind
// stops no one.
func TestListenOneOfMany(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.sock")
	for round := range 50 {
		ls, errs := listenAtOnce(path, 16)
		for _, err := range errs {
			if !strings.Contains(err.Error(), "another agent") {
				t.Errorf("round %d: a losing start said %v, want another agent named", round, err)
			}
		}
		for _, l := range ls {
			l.Close()
		}
		if len(ls) != 1 {
			t.Fatalf("round %d: %d of 16 agents started at once listen on one socket, want 1", round, len(ls))
		}
		for _, p := range []string{path, path + ".lock"} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("round %d: %s is left after the agent closed", round, p)
			}
		}
	}
	if err := os.WriteFile(path+".lock", nil, 0o600); err != nil { // a killed agent's
		t.Fatal(err)
	}
	l, err := server.Listen("unix:" + path)
	if err != nil {
		t.Fatalf("Listen beside a lock file no one holds = %v", err)
	}
	l.Close()
}

// listenAtOnce starts n listens on path together and returns those that
// listen and the errors of the others.
func listenAtOnce(path string, n int) ([]net.Listener, []error) {
	var mu sync.Mutex
	var ls []net.Listener
	var errs []error
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			l, err := server.Listen("unix:" + path)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else {
				ls = append(ls, l)
			}
		}()
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return ls, errs
}
