package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
)

const tinyPlan = "../../gpuagent/agent/testdata/tiny.plan.json"

// noDriver is what serve says, in part, on a machine with no CUDA driver:
// the driver's error, then what to do.
const noDriver = "no CUDA driver: dlopen libcuda.so.1"

func TestRun(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{nil, exitUsage, "usage: gpuagent"},
		{[]string{"help"}, exitOK, "commands:"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"serve"}, exitUsage, "--plan is required"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "vmm"}, exitFail, noDriver},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "cuda"}, exitFail, noDriver},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--sidecar", "true"}, exitFail, "sidecar_uncharged"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--fake-context-mib", "400"}, exitFail, "calibration_drift"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--fake-total-mib", "900"}, exitFail, "over by"},
		{[]string{"serve", "--plan", "missing.json", "--backend", "fake"}, exitUsage, "no such file"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--listen", "0.0.0.0:9999"}, exitUsage, "loopback"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--socket-mode", "rw"}, exitUsage, "want an octal mode"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--socket-mode", "0066"}, exitUsage, "let the owner read and write"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--listen", "127.0.0.1:0"}, exitUsage, "TCP requires --token-file"},
		{[]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--listen", "unix:x.sock", "--token-file", tinyPlan}, exitUsage, "--token-file is for a TCP --listen"},
		{[]string{"report"}, exitUsage, "give --listen"},
		{[]string{"report", "--plan", tinyPlan}, exitOK, "planned side only"},
		{[]string{"soak"}, exitUsage, "--listen is required"},
		{[]string{"soak", "--listen", "unix:/nonexistent", "--latency-batch", "8", "--latency-form", "xml"}, exitUsage, "want binary, json or both"},
	}
	driver := haveDriver()
	if !driver { // and says what to do
		var out bytes.Buffer
		if code := run([]string{"serve", "--plan", tinyPlan}, &out, &out); code != exitFail || !strings.Contains(out.String(), "--backend fake") {
			t.Errorf("serve with no driver = %d, %q; want %d, the driver named and --backend fake offered", code, out.String(), exitFail)
		}
	}
	for _, tt := range tests {
		if driver && tt.out == noDriver {
			continue // on a GPU these would serve; make gpu-test covers them there
		}
		var out bytes.Buffer
		code := run(tt.args, &out, &out)
		if code != tt.code || !strings.Contains(out.String(), tt.out) {
			t.Errorf("run(%q) = %d, %q; want %d and %q", tt.args, code, out.String(), tt.code, tt.out)
		}
	}
}

// TestServeReportSoak is the whole flow a user runs: serve a plan on the
// fake backend, read its report, soak it, stop it.
func TestServeReportSoak(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ga.sock")
	var serveOut, serveErr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--listen", "unix:" + sock}, &serveOut, &serveErr)
	}()
	// Dial, not stat: the socket file appears at bind, before listen, and
	// a connection in between is refused (the three calls below failed so
	// once under load).
	waitListening(t, "unix", sock)
	var out bytes.Buffer
	if code := run([]string{"report", "--listen", "unix:" + sock}, &out, &out); code != exitOK || !strings.Contains(out.String(), "attribution") {
		t.Errorf("report = %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"soak", "--listen", "unix:" + sock, "--ops", "5000", "--clients", "8"}, &out, &out); code != exitOK {
		t.Errorf("soak = %d\n%s", code, out.String())
	}
	out.Reset()
	latency := []string{"soak", "--listen", "unix:" + sock, "--latency-batch", "16", "--latency-steps", "200", "--latency-form", "both"}
	if code := run(latency, &out, &out); code != exitOK || !strings.Contains(out.String(), "(json)") || !strings.Contains(out.String(), "(binary)") {
		t.Errorf("soak --latency-form both = %d\n%s", code, out.String())
	}
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Interrupt)
	if code := <-done; code != exitOK {
		t.Errorf("serve = %d: %s", code, serveErr.String())
	}
	if !strings.Contains(serveOut.String(), "not a sidecar") {
		t.Errorf("serve did not say whether it is a sidecar:\n%s", serveOut.String())
	}
}

// TestServeTCPWithToken: serve on loopback TCP with --token-file; report
// and soak with the token are served, without it refused, saying why.
func TestServeTCPWithToken(t *testing.T) {
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte(strings.Repeat("5eed", 10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var serveOut, serveErr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"serve", "--plan", tinyPlan, "--backend", "fake", "--listen", addr, "--token-file", tokFile}, &serveOut, &serveErr)
	}()
	waitListening(t, "tcp", addr)
	var out bytes.Buffer
	if code := run([]string{"report", "--listen", addr}, &out, &out); code != exitFail || !strings.Contains(out.String(), "unauthorized") {
		t.Errorf("report without the token = %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"report", "--listen", addr, "--token-file", tokFile}, &out, &out); code != exitOK || !strings.Contains(out.String(), "attribution") {
		t.Errorf("report with the token = %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"soak", "--listen", addr, "--token-file", tokFile, "--ops", "500", "--clients", "2"}, &out, &out); code != exitOK {
		t.Errorf("soak with the token = %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"soak", "--listen", addr, "--ops", "10", "--clients", "1"}, &out, &out); code == exitOK || !strings.Contains(out.String(), "unauthorized") {
		t.Errorf("soak without the token = %d\n%s", code, out.String())
	}
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Interrupt)
	if code := <-done; code != exitOK {
		t.Errorf("serve = %d: %s", code, serveErr.String())
	}
}

// waitListening waits up to 10 s for something to accept connections at
// addr.
func waitListening(t *testing.T, network, addr string) {
	t.Helper()
	for i := 0; ; i++ {
		if c, err := net.Dial(network, addr); err == nil {
			c.Close()
			return
		}
		if i == 1000 {
			t.Fatalf("nothing listening on %s after 10 s", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// haveDriver reports whether the CUDA driver loads on this machine.
func haveDriver() bool {
	b, err := cudamalloc.Open(cudamalloc.Options{})
	if err != nil {
		return false
	}
	b.Close()
	return true
}
