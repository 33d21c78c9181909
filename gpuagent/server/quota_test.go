package server_test

// These tests hold finding 10's token and finding 11's reserved /metrics
// slot (issue 13).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// holdIdle opens n connections that each make one request and stay open,
// idle: opening a lease on each when leases is set.
func holdIdle(t *testing.T, addr string, n int, leases bool) {
	t.Helper()
	req := "GET /v1/stats HTTP/1.1\r\nHost: x\r\n\r\n"
	if leases {
		req = "POST /v1/lease HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	}
	for range n { // each answered once, so each is accepted and counted
		c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, req)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%q: status %d", req, resp.StatusCode)
		}
	}
}

// TestMetricsSlotUnderFlood: with every connection of the cap held by a
// client with a lease, a scrape is still served, and nothing else is on
// the slot kept for it.
func TestMetricsSlotUnderFlood(t *testing.T) {
	addr, a := start(t, tiny, agent.Config{}, server.Config{MaxConns: 4, MaxPeerConns: -1})
	holdIdle(t, addr, 4, true)
	if v, ok := tryMetric(addr, "gpuagent_connections"); !ok || v != "5" {
		t.Errorf("a scrape with the cap of 4 held: %q, answered %v; want 5 open connections counted", v, ok)
	}
	if got := rawPost(t, addr, "/v1/lease", "{}"); got != http.StatusServiceUnavailable {
		t.Errorf("a lease asked on the /metrics slot: status %d, want 503", got)
	}
	if n := a.Stats().Leases; n != 4 {
		t.Errorf("%d leases open, want the 4 held ones", n)
	}
}

// TestIdleConnsWithoutLeasesMakeRoom: at the cap, an idle connection that
// holds no lease is closed for a new client, so idle connections alone
// cannot shed every new client (1,023 did).
func TestIdleConnsWithoutLeasesMakeRoom(t *testing.T) {
	addr, _ := start(t, tiny, agent.Config{}, server.Config{MaxConns: 4, MetricsConns: -1, MaxPeerConns: -1})
	holdIdle(t, addr, 4, false)
	// The server marks a connection idle just after its answer is sent, so
	// a client dialing at once may find none idle yet and be shed.
	var c *client.Client
	eventually(t, "a new client is served with the cap held by idle connections", func() bool {
		var err error
		c, err = client.Dial(context.Background(), addr)
		return err == nil
	})
	defer c.Close()
	if _, err := c.Open(0, t.Name()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Admit(16, 4); err != nil {
		t.Errorf("a new client with the cap held by idle connections: %v", err)
	}
	if v := metric(t, addr, "gpuagent_connections_evicted_total"); v == "0" || v == "" {
		t.Errorf("gpuagent_connections_evicted_total = %q, want at least 1", v)
	}
}

func writeToken(t *testing.T, mode os.FileMode, tok string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(tok), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
	return path
}

func TestReadTokenFile(t *testing.T) {
	good := strings.Repeat("ab12", 8)
	if tok, err := server.ReadTokenFile(writeToken(t, 0o600, good+"\n")); err != nil || string(tok) != good {
		t.Errorf("ReadTokenFile(a 0600 file) = %q, %v; want %q", tok, err, good)
	}
	for _, tc := range []struct {
		name string
		path string
		want string
	}{
		{"group-readable", writeToken(t, 0o640, good), "chmod 600"},
		{"world-readable", writeToken(t, 0o644, good), "chmod 600"},
		{"short", writeToken(t, 0o600, "secret\n"), "a token of 6 bytes"},
		{"empty", writeToken(t, 0o600, ""), "a token of 0 bytes"},
		{"two lines", writeToken(t, 0o600, good+"\n"+good+"\n"), "visible ASCII"},
		{"a space", writeToken(t, 0o600, good+" x"), "visible ASCII"},
		{"huge", writeToken(t, 0o600, strings.Repeat("a", 1<<20)), "want 16 to 1024"},
		{"missing", filepath.Join(t.TempDir(), "none"), "no such file"},
		{"a directory", t.TempDir(), "not a regular file"},
	} {
		if _, err := server.ReadTokenFile(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadTokenFile(%s) = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestTCPToken: with a token, a TCP request without it or with another is
// refused with 401 (the API, the frames upgrade and /metrics alike), and
// the client that gives it is served; the Unix socket needs none.
func TestTCPToken(t *testing.T) {
	tok := strings.Repeat("c0ffee", 6)
	l, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unix, a := start(t, tiny, agent.Config{}, server.Config{Token: []byte(tok)})
	s := server.New(a, server.Config{Token: []byte(tok)})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	addr := l.Addr().String()
	body := `{"ttl_ms":60000}`
	post := func(auth string) string {
		return fmt.Sprintf("POST /v1/lease HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", auth, len(body), body)
	}
	for _, tc := range []struct {
		name, req string
		want      int
	}{
		{"no token", post(""), http.StatusUnauthorized},
		{"a wrong token", post("Authorization: Bearer " + strings.Repeat("x", len(tok)) + "\r\n"), http.StatusUnauthorized},
		{"a prefix of the token", post("Authorization: Bearer " + tok[:len(tok)-1] + "\r\n"), http.StatusUnauthorized},
		{"another scheme", post("Authorization: Basic " + tok + "\r\n"), http.StatusUnauthorized},
		{"metrics without it", "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", http.StatusUnauthorized},
		{"frames without it", "GET /v1/frames HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: " + wire.FramesProtocol + "\r\n\r\n", http.StatusUnauthorized},
		{"the token", post("Authorization: Bearer " + tok + "\r\n"), http.StatusOK},
		{"the token, scheme in lower case", post("Authorization: bearer " + tok + "\r\n"), http.StatusOK},
		{"metrics with it", "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + tok + "\r\n\r\n", http.StatusOK},
	} {
		if got := tcpRequest(t, addr, tc.req); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	_, err = client.Dial(context.Background(), addr)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeUnauthorized || !strings.Contains(err.Error(), "--token-file") {
		t.Errorf("client.Dial over TCP without the token = %v, want an unauthorized error naming --token-file", err)
	}
	c, err := client.DialWith(context.Background(), addr, client.Options{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Open(0, "with token"); err != nil {
		t.Errorf("a lease over TCP with the token: %v", err)
	}
	if c := openLease(t, unix); c == nil {
		t.Error("the Unix socket asked for a token")
	}
}
