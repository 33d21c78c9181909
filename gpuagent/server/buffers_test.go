package server_test

// These tests hold issue 31's point 16: partial frames and bodies.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// freeBytes is what each connection buffers outside the budget.
const freeBytes = 64 << 10

// partialFrame sends on c the header of a frame of n bytes and the first
// sent of them.
func partialFrame(c net.Conn, call wire.Call, n, sent int) {
	var head [5]byte
	binary.BigEndian.PutUint32(head[:], uint32(n))
	head[4] = byte(call)
	c.Write(head[:])
	c.Write(bytes.Repeat([]byte{' '}, sent-1))
}

// readAnswer reads one answer frame from an upgraded connection and
// returns its status and body.
func readAnswer(t *testing.T, c net.Conn, r interface{ Read([]byte) (int, error) }) (int, string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf, err := wire.ReadFrame(r, nil, wire.MaxBody+16)
	if err != nil || len(buf) < 2 {
		t.Fatalf("no answer frame: %v", err)
	}
	return int(binary.BigEndian.Uint16(buf)), string(buf[2:])
}

// TestPartialRequestsBounded: 40 upgraded connections each send 900 KiB
// of a 1 MiB frame and 40 HTTP connections 900 KiB of a 1 MiB body, and
// stop. What the server buffers stays within its budget (4 MiB here) and
// each connection's free 64 KiB, where it grew with every byte (1,000 such
// frames held 1.13 GB before); a whole 1 MiB frame is refused meanwhile
// with 503 naming the limit, a small one is served, and once the
// connections close nothing is held.
func TestPartialRequestsBounded(t *testing.T) {
	const budget, conns = 4 << 20, 40
	addr, _, s := startServer(t, tiny, agent.Config{}, server.Config{MaxBuffered: budget, ReadTimeout: time.Minute})
	var open []net.Conn
	for range conns {
		c, _ := upgraded(t, addr)
		partialFrame(c, wire.CallStats, 1<<20, 900<<10)
		open = append(open, c)
		h, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "POST /v1/lease HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 1<<20)
		h.Write(bytes.Repeat([]byte{' '}, 900<<10))
		open = append(open, h)
	}
	bound := int64(budget + 2*conns*freeBytes + 2*freeBytes)
	eventually(t, "the server reads the partial requests", func() bool { return s.Buffered() >= budget })
	if got := s.Buffered(); got > bound {
		t.Errorf("%d partial 1 MiB requests buffer %d bytes, more than the budget and free shares %d", 2*conns, got, bound)
	}
	c, r := upgraded(t, addr)
	partialFrame(c, wire.CallStats, 1<<20, 1<<20)
	if st, body := readAnswer(t, c, r); st != 503 || !strings.Contains(body, "the most it buffers") {
		t.Errorf("a whole 1 MiB frame with the budget spent: %d %.200s, want 503 naming the limit", st, body)
	}
	partialFrame(c, wire.CallStats, 1, 1)
	if st, _ := readAnswer(t, c, r); st != 200 {
		t.Errorf("a small frame with the budget spent: status %d, want 200", st)
	}
	for _, c := range open {
		c.Close()
	}
	c.Close()
	eventually(t, "the buffers are given back on close", func() bool { return s.Buffered() == 0 })
}

// TestPartialFrameTimesOut: a frame whose header came and whose bytes
// stop is dropped with its connection once the read timeout passes (it
// was held for the idle timeout, two lease TTLs), and its buffer given
// back.
func TestPartialFrameTimesOut(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr, _, s := startServer(t, tiny, agent.Config{}, server.Config{ReadTimeout: timeout})
	c, r := upgraded(t, addr)
	partialFrame(c, wire.CallStats, 1<<20, 300<<10)
	c.SetReadDeadline(time.Now().Add(40 * timeout))
	if n, err := r.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Errorf("a stalled partial frame: read %d, %v; want the connection closed within 40 read timeouts", n, err)
	}
	eventually(t, "its buffer is given back", func() bool { return s.Buffered() == 0 })
}
