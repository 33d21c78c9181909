package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/planner/gguf/gguftest"
)

// serveTest starts the calculator's server with l on a free loopback port.
func serveTest(t *testing.T, l serveLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok"))
	}), l)
	go srv.Serve(limitConns(ln, l))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedByServer reports whether the server closes c, reading until then;
// the deadline only keeps a broken test from hanging.
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, os.ErrDeadlineExceeded)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServeSlowBody holds finding 2 of issue 13: a body sent too slowly is
// cut off (100 slow 8 MiB bodies took RSS from 65 MB to 1.27 GB).
func TestServeSlowBody(t *testing.T) {
	addr := serveTest(t, serveLimits{Read: 300 * time.Millisecond})
	c := dial(t, addr)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n{\"model\":")
	if !closedByServer(t, c) {
		t.Error("the server kept a connection whose body stalled")
	}
}

// TestServeIdle: an idle kept-alive connection is closed (3,000 stayed open).
func TestServeIdle(t *testing.T) {
	addr := serveTest(t, serveLimits{Idle: 300 * time.Millisecond})
	c := dial(t, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %v, %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if !closedByServer(t, c) {
		t.Error("the server kept an idle connection")
	}
}

// TestServeConnCap: connections past the cap are closed at accept, and the
// ones within it are served.
func TestServeConnCap(t *testing.T) {
	addr := serveTest(t, serveLimits{MaxConns: 2})
	for range 2 {
		c := dial(t, addr)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		r := bufio.NewReader(c)
		if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("a connection within the cap: %v, %v", resp, err)
		}
	}
	c := dial(t, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if strings.Contains(string(b), "200 OK") || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a third connection over a cap of 2 was served or left open: %q, %v", b, err)
	}
}

// dialFrom connects to addr from the loopback address local (Linux routes
// all of 127.0.0.0/8 to lo), skipping the test where it cannot.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dial from %s: %v", local, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// served reports whether a GET on c is answered 200 (the connection stays
// open, kept alive), or the server closed c.
func served(t *testing.T, c net.Conn) bool {
	t.Helper()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("a connection was neither served nor closed")
	}
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// TestServeConnsPerPeer holds issue 31's point 12 (one client holding 512
// keep-alives reset every fresh client): one peer holding its cap of
// connections, and trying for more, leaves room for every other peer; a
// trusted proxy, whose connections are all its clients', has only the
// global cap.
func TestServeConnsPerPeer(t *testing.T) {
	addr := serveTest(t, serveLimits{MaxConns: 8, MaxPerPeer: 3, Proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.4/32")}})
	var hog []net.Conn
	for range 8 { // the whole global cap, from one peer
		hog = append(hog, dialFrom(t, "127.0.0.2", addr))
	}
	kept := 0
	for _, c := range hog {
		if served(t, c) {
			kept++
		}
	}
	if kept != 3 {
		t.Errorf("one peer asking for 8 connections kept %d, want its cap of 3", kept)
	}
	for _, local := range []string{"127.0.0.3", "127.0.0.1"} {
		if c := dialFrom(t, local, addr); !served(t, c) {
			t.Errorf("a fresh client from %s was not served while another peer held its cap", local)
		}
	}
	proxied := 0
	for range 4 {
		if served(t, dialFrom(t, "127.0.0.4", addr)) {
			proxied++
		}
	}
	if proxied != 3 { // 8 in all: the hog's 3, the two fresh clients', 3 of the proxy's
		t.Errorf("a trusted proxy kept %d connections, want 3 (the rest of the global cap of 8)", proxied)
	}
}

func TestServeLimitDefaults(t *testing.T) {
	s := newServer(http.NotFoundHandler(), serveLimits{})
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Errorf("default server timeouts: header %v read %v write %v idle %v; want all set",
			s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
}

// TestInputNotRegular holds finding 6 for --input: a device is refused.
func TestInputNotRegular(t *testing.T) {
	if _, err := readLimited("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readLimited(/dev/zero) = %v, want it refused", err)
	}
}

// TestMmprojErrorsNamed holds issue 31's point 18: an --mmproj file that
// cannot be read, or is not a vision projector, was reported as a --model
// error; it names --mmproj, and the model's own errors still name --model.
func TestMmprojErrorsNamed(t *testing.T) {
	notProjector := filepath.Join(t.TempDir(), "model.gguf")
	f, err := gguftest.FromConfig(mustRead(t, "../../planner/hf/testdata/configs/Qwen__Qwen3-30B-A3B.json"), "q4_k_m", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write(notProjector); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "qwen3-8b-q8_0", "--mmproj", "/nonexistent/mmproj.gguf"}, "--mmproj: "},
		{[]string{"--model", "qwen3-8b-q8_0", "--mmproj", notProjector}, `--mmproj: ` + notProjector + `: general.architecture is "qwen3moe", not a vision projector`},
		{[]string{"--model", "/nonexistent/model.gguf", "--mmproj", notProjector}, "--model: "},
	} {
		args := append([]string{"plan", "--gpu", "h200-linux-cuda13.0", "--max-seq-len", "4096"}, tc.args...)
		code, _, errs := runCLI(args...)
		if code != exitBadInput || !strings.HasPrefix(errs, "vramplan plan: "+tc.want) {
			t.Errorf("plan %v = %d %q, want an error starting %q", tc.args, code, errs, tc.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
