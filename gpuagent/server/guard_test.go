package server_test

// These tests hold the gpuagent findings 9 to 11 and 13 of issue 13's
// red-team run.

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// TestListenRefusesTakeover holds finding 9: a second agent on a socket
// another answers on is refused, not given the socket; a stale socket
// file is replaced; the socket is owner-only.
func TestListenRefusesTakeover(t *testing.T) {
	addr, _ := start(t, tiny, agent.Config{}, server.Config{})
	if l, err := server.Listen(addr); err == nil || !strings.Contains(err.Error(), "another agent") {
		if l != nil {
			l.Close()
		}
		t.Fatalf("Listen(%s) while an agent serves = %v, want a refusal", addr, err)
	}
	c := openLease(t, addr) // the first agent still answers
	if _, err := c.Admit(16, 4); err != nil {
		t.Errorf("the first agent after a second tried its socket: %v", err)
	}
	path := strings.TrimPrefix(addr, "unix:")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	stale := filepath.Join(t.TempDir(), "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if l, err := server.Listen("unix:" + stale); err != nil {
		t.Errorf("Listen on a stale socket file = %v, want it replaced", err)
	} else {
		l.Close()
	}
}

// tcpRequest sends one hand-made request over TCP and returns the status.
func tcpRequest(t *testing.T, addr, req string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, req)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", req[:40], err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTCPRefusesBrowsers holds finding 10: on TCP a text/plain POST (CSRF),
// a foreign Host (DNS rebinding) and a browser's Origin are refused; the
// agent's own client is not.
func TestTCPRefusesBrowsers(t *testing.T) {
	l, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, a := start(t, tiny, agent.Config{}, server.Config{})
	s := server.New(a, server.Config{})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	addr := l.Addr().String()
	body := `{"ttl_ms":60000}`
	post := func(host, ctype, extra string) string {
		return fmt.Sprintf("POST /v1/lease HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n%sContent-Length: %d\r\n\r\n%s", host, ctype, extra, len(body), body)
	}
	for _, tc := range []struct {
		name, req string
		want      int
	}{
		{"text/plain (CSRF)", post("127.0.0.1", "text/plain", ""), http.StatusUnsupportedMediaType},
		{"a foreign Host (DNS rebinding)", post("evil.example:8080", "application/json", ""), http.StatusForbidden},
		{"a browser's Origin", post("localhost", "application/json", "Origin: https://evil.example\r\n"), http.StatusForbidden},
		{"fetch metadata", post("localhost", "application/json", "Sec-Fetch-Site: cross-site\r\n"), http.StatusForbidden},
		{"metrics for a foreign Host", "GET /metrics HTTP/1.1\r\nHost: evil.example\r\n\r\n", http.StatusForbidden},
		{"JSON from a loopback Host", post("127.0.0.1:1", "application/json; charset=utf-8", ""), http.StatusOK},
	} {
		if got := tcpRequest(t, addr, tc.req); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// A lease ends with its connection, and tcpRequest has closed it, so
	// the one lease opened may be open or already ended as a disconnect.
	if st := a.Stats(); st.Leases+int(st.Dropped) != 1 {
		t.Errorf("%d leases open and %d ended by disconnect, want 1 in all (only the loopback JSON request's)", st.Leases, st.Dropped)
	}
	c := openLease(t, addr)
	if _, err := c.Admit(16, 4); err != nil {
		t.Errorf("the agent's client over TCP: %v", err)
	}
}

// TestFrameBufferGrowsWithBytes holds part of finding 11: a frame that
// declares a megabyte and sends a byte costs kilobytes, not the megabyte.
func TestFrameBufferGrowsWithBytes(t *testing.T) {
	head := binary.BigEndian.AppendUint32(nil, 1<<20)
	r := io.MultiReader(strings.NewReader(string(head)), strings.NewReader("x"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := wire.ReadFrame(r, nil, wire.MaxBody+1)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("ReadFrame of a cut-off frame = nil error")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("ReadFrame of 1 byte of a declared 1 MiB frame allocated %d bytes", n)
	}
	full := append(binary.BigEndian.AppendUint32(nil, 100_000), make([]byte, 100_000)...)
	if got, err := wire.ReadFrame(strings.NewReader(string(full)), nil, wire.MaxBody+1); err != nil || len(got) != 100_000 {
		t.Errorf("ReadFrame(100,000 bytes) = %d bytes, %v", len(got), err)
	}
}

// TestErrorsTruncated holds part of finding 13: an error does not echo a
// hostile request's text back whole.
func TestErrorsTruncated(t *testing.T) {
	e := wire.Errorf(wire.CodeBadRequest, "op %q: unknown", strings.Repeat("A", 100_000))
	if len(e.Message) > wire.MaxMessage+64 || !strings.Contains(e.Message, "bytes more") {
		t.Errorf("an error about a 100 KB op name is %d bytes", len(e.Message))
	}
}
