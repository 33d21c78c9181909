package server_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// rawPost sends one hand-made request on its own connection and returns
// the status, or 0 when the server closed the connection instead.
func rawPost(t *testing.T, addr, path, body string) int {
	t.Helper()
	c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// victim holds one sequence whose table the hostile calls must not touch.
func victim(t *testing.T, addr string) (*client.Client, wire.Result) {
	c := openLease(t, addr)
	r, err := c.Admit(512, 200, 901, 902)
	if err != nil {
		t.Fatal(err)
	}
	return c, r
}

func checkVictim(t *testing.T, c *client.Client, want wire.Result) {
	t.Helper()
	got, err := c.Step(&wire.Step{Ops: []wire.Op{{Op: wire.OpTable, Seq: want.Seq}}})
	if err != nil || fmt.Sprint(got.Results[0].Blocks) != fmt.Sprint(want.Blocks) {
		t.Errorf("victim's table = %v, %v; want %v untouched", got, err, want.Blocks)
	}
}

func TestHostileRequests(t *testing.T) {
	addr, _ := start(t, tiny, agent.Config{}, server.Config{})
	vc, vr := victim(t, addr)
	lease := `"lease":"` + vc.Lease().Lease + `"`
	huge := `{"lease":"x","ops":[` + strings.Repeat(`{"op":"unpin"},`, 80_000) + `{"op":"unpin"}]}`
	tests := []struct {
		name, path, body string
		want             int
	}{
		{"garbage", "/v1/step", "\x00\xff garbage {{{", http.StatusBadRequest},
		{"trailing data", "/v1/step", `{"lease":"x"} {}`, http.StatusBadRequest},
		{"unknown field", "/v1/step", `{"lease":"x","evil":1}`, http.StatusBadRequest},
		{"body over 1 MiB", "/v1/step", huge, http.StatusRequestEntityTooLarge},
		{"number beyond int", "/v1/admit", `{"lease":"x","op":{"op":"admit","max_tokens":1e30}}`, http.StatusBadRequest},
		{"negative tokens", "/v1/admit", `{"lease":"x","op":{"op":"admit","max_tokens":-5}}`, http.StatusBadRequest},
		{"tokens over max_seq_len", "/v1/admit", `{"lease":"x","op":{"op":"admit","max_tokens":1025}}`, http.StatusUnprocessableEntity},
		{"unknown lease", "/v1/step", `{"lease":"0123","ops":[{"op":"unpin"}]}`, http.StatusNotFound},
		{"another connection's lease", "/v1/step", `{` + lease + `,"ops":[{"op":"free","seq":1}]}`, http.StatusNotFound},
		{"decode batch over max_batch", "/v1/step", `{"lease":"x","decode":{"seqs":[` + strings.Repeat("1,", 32) + `1]}}`, http.StatusRequestEntityTooLarge},
		{"too many ops", "/v1/step", `{"lease":"x","ops":[` + strings.Repeat(`{"op":"unpin"},`, 64) + `{"op":"unpin"}]}`, http.StatusRequestEntityTooLarge},
		{"op with a field it does not take", "/v1/step", `{"lease":"x","ops":[{"op":"free","seq":1,"hashes":[1]}]}`, http.StatusBadRequest},
		{"wrong method", "/v1/report", `{}`, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rawPost(t, addr, tt.path, tt.body); got != tt.want {
				t.Errorf("POST %s %.60q = %d, want %d", tt.path, tt.body, got, tt.want)
			}
		})
	}
	if got := rawPost(t, addr, "/v1/step", "x"); got == 0 {
		t.Error("the server stopped answering")
	}
	checkVictim(t, vc, vr)
}

func TestGarbageFrames(t *testing.T) {
	addr, _ := start(t, tiny, agent.Config{}, server.Config{ReadTimeout: 300 * time.Millisecond})
	vc, vr := victim(t, addr)
	frames := [][]byte{
		[]byte("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"), // a TLS hello
		bytes.Repeat([]byte("A"), 1<<20),                       // a header that never ends
		[]byte("POST /v1/step HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{"),
		[]byte("POST /v1/step HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
		[]byte("GET /metrics HTTP/1.1\r\nHost: x\r\n"), // slowloris: never finished
	}
	for i, f := range frames {
		c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
		if err != nil {
			t.Fatal(err)
		}
		c.Write(f)
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		var buf [512]byte
		for {
			if _, err := c.Read(buf[:]); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Errorf("frame %d: the connection was still open after 3 s", i)
				}
				break
			}
		}
		c.Close()
	}
	checkVictim(t, vc, vr)
}

func TestDoubleFreeAndForeignHandles(t *testing.T) {
	addr, a := start(t, tiny, agent.Config{}, server.Config{})
	vc, vr := victim(t, addr)
	hostile := openLease(t, addr)
	ops := []wire.Op{{Op: wire.OpFree, Seq: vr.Seq}, {Op: wire.OpAppend, Seq: vr.Seq, Tokens: 1},
		{Op: wire.OpFork, Seq: vr.Seq}, {Op: wire.OpTable, Seq: vr.Seq}, {Op: wire.OpFree, Seq: 1<<64 - 1}}
	res, err := hostile.Step(&wire.Step{Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Results {
		if r.Error == nil || r.Error.Code != wire.CodeNoSequence {
			t.Errorf("%s of another lease's handle = %+v, want no_sequence", ops[i].Op, r)
		}
	}
	own, _ := hostile.Admit(64, 10)
	hostile.Free(own.Seq)
	if err := hostile.Free(own.Seq); err == nil {
		t.Error("double free succeeded")
	}
	checkVictim(t, vc, vr)
	if s := a.Stats(); s.Sequences != 1 {
		t.Errorf("sequences = %d, want the victim's one", s.Sequences)
	}
}

func TestThousandsOfConnections(t *testing.T) {
	addr, a := start(t, tiny, agent.Config{}, server.Config{MaxConns: 64})
	vc, vr := victim(t, addr)
	var conns []net.Conn
	for range 2000 {
		c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
		if err != nil {
			break // the backlog is full: also a refusal
		}
		conns = append(conns, c)
	}
	for _, c := range conns[:100] { // some of them open leases and admit
		fmt.Fprintf(c, "POST /v1/lease HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	}
	checkVictim(t, vc, vr)
	for _, c := range conns {
		c.Close()
	}
	eventually(t, "connections drain", func() bool { return a.Stats().Leases == 1 })
	checkVictim(t, vc, vr)
	// The leases drain before the listener has seen every flooded
	// connection close (the kernel's backlog is still being accepted and
	// shed), so a scrape may be shed once or twice before the cap frees.
	var shed string
	eventually(t, "a scrape is served after the flood", func() bool {
		var ok bool
		shed, ok = tryMetric(addr, "gpuagent_connections_shed_total")
		return ok
	})
	// The flood never sent a byte: its connections make room for each
	// other (evicted) or, past the peer's cap, are shed.
	if evicted := metric(t, addr, "gpuagent_connections_evicted_total"); (shed == "0" || shed == "") && (evicted == "0" || evicted == "") {
		t.Errorf("connections shed = %q, evicted %q with %d dialed against a cap of 64", shed, evicted, len(conns))
	}
	if c := dial(t, addr); c.Stats(new(agent.Stats)) != nil {
		t.Error("a new client cannot connect after the flood")
	}
}

func TestLeaseEndsOnDisconnectAndExpiry(t *testing.T) {
	addr, a := start(t, tiny, agent.Config{}, server.Config{ReapEvery: 10 * time.Millisecond})
	c := openLease(t, addr)
	for range 5 {
		if _, err := c.Admit(1024, 700); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	eventually(t, "disconnect releases the lease", func() bool { s := a.Stats(); return s.Leases == 0 && s.KV.Live == s.KV.Cached })

	raw, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	fmt.Fprintf(raw, "POST /v1/lease HTTP/1.1\r\nHost: x\r\nContent-Length: 14\r\n\r\n{\"ttl_ms\":100}")
	eventually(t, "the lease opens", func() bool { return a.Stats().Leases == 1 })
	eventually(t, "an unrenewed lease expires", func() bool { s := a.Stats(); return s.Leases == 0 && s.Expired == 1 })
}

// upgraded returns a raw connection switched to frames.
func upgraded(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /v1/frames HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", wire.FramesProtocol)
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade = %v, %v", resp, err)
	}
	return c, r
}

func TestHostileFrames(t *testing.T) {
	addr, _ := start(t, tiny, agent.Config{}, server.Config{})
	vc, vr := victim(t, addr)
	tests := []struct {
		name  string
		frame []byte
		want  int // answer status; 0: the connection is closed
	}{
		{"unknown call", wire.AppendFrame(nil, []byte{99}, []byte(`{}`)), http.StatusBadRequest},
		{"garbage body", wire.AppendFrame(nil, []byte{byte(wire.CallStep)}, []byte("\xff\x00")), http.StatusBadRequest},
		{"foreign lease", wire.AppendFrame(nil, []byte{byte(wire.CallStep)}, []byte(`{"lease":"`+vc.Lease().Lease+`"}`)), http.StatusNotFound},
		{"binary decode, garbage", wire.AppendFrame(nil, []byte{byte(wire.CallDecode)}, []byte("\xff\x00")), http.StatusBadRequest},
		{"binary decode, foreign lease", decodeFrame(vc.Lease().Lease, vr.Seq), http.StatusNotFound},
		{"binary decode, over max_batch", decodeFrame("l", make([]uint64, 33)...), http.StatusRequestEntityTooLarge},
		{"binary decode, over the framing limit", decodeFrame("l", make([]uint64, wire.MaxBatch+1)...), http.StatusRequestEntityTooLarge},
		{"binary decode, trailing bytes", wire.AppendFrame(nil, []byte{byte(wire.CallDecode)}, append(wire.AppendDecode(nil, "l", &wire.Decode{Seqs: []uint64{1}}), 0)), http.StatusBadRequest},
		{"frame over the limit", []byte{0x7f, 0xff, 0xff, 0xff, 1}, 0},
		{"empty frame", []byte{0, 0, 0, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := upgraded(t, addr)
			c.Write(tt.frame)
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			got := 0
			if b, err := wire.ReadFrame(r, nil, wire.MaxBody); err == nil && len(b) >= 2 {
				got = int(b[0])<<8 | int(b[1])
			}
			if got != tt.want {
				t.Errorf("answer status %d, want %d", got, tt.want)
			}
		})
	}
	checkVictim(t, vc, vr)
}

// decodeFrame is a binary decode step frame for lease and seqs.
func decodeFrame(lease string, seqs ...uint64) []byte {
	body := wire.AppendDecode(nil, lease, &wire.Decode{Seqs: seqs})
	return wire.AppendFrame(nil, []byte{byte(wire.CallDecode)}, body)
}

// metric scrapes /metrics and returns the named unlabelled sample's value.
func metric(t *testing.T, addr, name string) string {
	t.Helper()
	v, ok := tryMetric(addr, name)
	if !ok {
		t.Fatalf("GET /metrics on %s: no answer", addr)
	}
	return v
}

// tryMetric scrapes the agent at addr and returns the metric's value ("" when
// absent); ok is false when the scrape got no answer.
func tryMetric(addr, name string) (v string, ok bool) {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://agent/metrics")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return v, true
		}
	}
	return "", true
}

func TestLoopbackTCP(t *testing.T) {
	if _, err := server.Listen("0.0.0.0:0"); err == nil {
		t.Error("Listen on a non-loopback address succeeded")
	}
	l, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, a := start(t, tiny, agent.Config{}, server.Config{}) // a second listener on the same agent
	s := server.New(a, server.Config{})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	c := openLease(t, l.Addr().String())
	if _, err := c.Admit(64, 20); err != nil {
		t.Errorf("admit over loopback TCP: %v", err)
	}
}
