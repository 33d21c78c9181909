package server_test

// These tests hold issue 31's point 8: connections that never send a
// byte.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/server"
)

const silentToken = "5ilent5ilent5ilent5ilent"

// serveOn serves a fresh agent with cfg on network ("unix", or "tcp" on
// loopback with silentToken required) and returns the client's address.
func serveOn(t *testing.T, network string, cfg server.Config) string {
	t.Helper()
	if network == "unix" {
		addr, _ := start(t, tiny, agent.Config{}, cfg)
		return addr
	}
	l, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, a := start(t, tiny, agent.Config{}, server.Config{})
	cfg.Token = []byte(silentToken)
	s := server.New(a, cfg)
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return l.Addr().String()
}

// rawDial dials addr ("unix:PATH" or HOST:PORT) from local, when set.
func rawDial(addr string, local net.Addr) (net.Conn, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		return net.Dial("unix", path)
	}
	d := net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
	return d.Dial("tcp", addr)
}

// request sends one request on a fresh connection and returns its
// status and the connection, left open; 0 when no answer came.
func request(t *testing.T, addr string, local net.Addr, method, path, body string) (int, net.Conn) {
	t.Helper()
	c, err := rawDial(addr, local)
	if err != nil {
		return 0, nil
	}
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		method, path, silentToken, len(body), body)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return 0, nil
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, c
}

// TestSilentConnections: 1,100 connections that never send a byte, on
// the Unix socket and on TCP, against the default cap of 1,024, and still
// 20 of 20 scrapes and 20 of 20 fresh clients' leases are served (0 of 20
// each before: silent connections were neither idle nor evictable).
func TestSilentConnections(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			addr := serveOn(t, network, server.Config{})
			for range 1100 {
				c, err := rawDial(addr, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			scraped, leased := 0, 0
			for range 20 {
				if st, c := request(t, addr, nil, "GET", "/metrics", ""); st == http.StatusOK {
					scraped++
					c.Close()
				}
				cl, err := client.DialWith(context.Background(), addr, client.Options{Token: silentToken})
				if err != nil {
					continue
				}
				if _, err := cl.Open(0, "fresh"); err == nil {
					leased++
				}
				cl.Close()
			}
			if scraped != 20 || leased != 20 {
				t.Errorf("with 1,100 silent connections: %d of 20 scrapes, %d of 20 fresh leases served", scraped, leased)
			}
		})
	}
}

// TestFirstByteDeadline: a connection that sends nothing is closed once
// the first-byte deadline passes; one whose first byte comes in time then
// has the whole read timeout (a minute here, so the header timeout is not
// what closes the silent one) for the rest of its request.
func TestFirstByteDeadline(t *testing.T) {
	const first = 200 * time.Millisecond
	addr := serveOn(t, "unix", server.Config{FirstByteTimeout: first, ReadTimeout: time.Minute})
	silent, err := rawDial(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	silent.SetReadDeadline(time.Now().Add(40 * first))
	if n, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a silent connection read %d, %v; want it closed (EOF) within 40 first-byte deadlines", n, err)
	}
	slow, err := rawDial(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	io.WriteString(slow, "GET /v1/st")
	time.Sleep(2 * first) // past the first-byte deadline, well inside the read timeout
	io.WriteString(slow, "ats HTTP/1.1\r\nHost: localhost\r\n\r\n")
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(slow), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a request whose first byte came in time and the rest later: %v, %v", resp, err)
	}
}

// TestPeerCap: one address holding leases on 20 connections gets at most
// its cap of 8, and a client at another address is served.
func TestPeerCap(t *testing.T) {
	addr := serveOn(t, "tcp", server.Config{MaxPeerConns: 8})
	greedy := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
	held := 0
	for range 20 {
		if st, c := request(t, addr, greedy, "POST", "/v1/lease", "{}"); st == http.StatusOK {
			held++
			defer c.Close()
		}
	}
	if held != 8 {
		t.Errorf("one address holds %d connections with leases, want its cap of 8", held)
	}
	st, c := request(t, addr, nil, "POST", "/v1/lease", "{}")
	if st != http.StatusOK {
		t.Fatalf("a client at another address: status %d, want 200", st)
	}
	c.Close()
}
