// Package client is the Go client of gpuagent's engine API (package wire).
//
// A Client owns one connection, upgraded to frames (wire.FramesProtocol),
// and a lease lives on the connection that opened it: closing the Client,
// or losing the connection, ends the lease and releases everything it
// held. Calls on one Client are serialized; an
// engine's scheduler makes one Step call per step.
//
// A Client is safe for concurrent use. Whoever dialed it closes it.
package client

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// ErrClosed is returned by calls on a closed Client or a broken connection;
// the lease is gone with it.
var ErrClosed = errors.New("gpuagent client: connection closed")

// A Client is one connection to an agent and, once opened, one lease.
type Client struct {
	spec  string // what Dial was given
	mu    sync.Mutex
	c     net.Conn
	r     *bufio.Reader
	in    []byte // the last answer frame
	out   []byte // the last request frame
	lease wire.Lease
	dead  bool
	stop  chan struct{}
	// renewing is set once the background renewal runs; it renews
	// whatever lease the Client holds.
	renewing bool
}

// Dial connects to the agent at spec ("unix:PATH" or "HOST:PORT") and
// upgrades the connection to frames (wire.FramesProtocol).
func Dial(ctx context.Context, spec string) (*Client, error) {
	return DialWith(ctx, spec, Options{})
}

// Options configures DialWith. Its zero value is Dial's.
type Options struct {
	// Token is the agent's bearer token, which its TCP listener requires
	// (gpuagent serve --token-file); a Unix socket needs none.
	Token string
}

// DialWith is Dial with options.
func DialWith(ctx context.Context, spec string, o Options) (*Client, error) {
	if strings.ContainsAny(o.Token, "\r\n") {
		return nil, errors.New("gpuagent client: the token holds a line break")
	}
	network, addr := "tcp", spec
	if p, ok := strings.CutPrefix(spec, "unix:"); ok {
		network, addr = "unix", p
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("gpuagent client: %w", err)
	}
	cl := &Client{spec: spec, c: c, r: bufio.NewReaderSize(c, 64<<10), stop: make(chan struct{})}
	if err := cl.upgrade(o.Token); err != nil {
		c.Close()
		return nil, fmt.Errorf("gpuagent client: upgrading to %s: %w", wire.FramesProtocol, err)
	}
	return cl, nil
}

func (c *Client) upgrade(token string) error {
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.c.SetDeadline(time.Time{})
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	req := "GET /v1/frames HTTP/1.1\r\nHost: gpuagent\r\n" + auth + "Connection: Upgrade\r\nUpgrade: " + wire.FramesProtocol + "\r\n\r\n"
	if _, err := io.WriteString(c.c, req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		var e wire.Error
		if json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&e) == nil && e.Code != "" {
			return fmt.Errorf("HTTP %d: %w", resp.StatusCode, &e)
		}
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// Close closes the connection, which ends the lease on the agent.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return nil
	}
	c.dead = true
	close(c.stop)
	return c.c.Close()
}

// Lease returns the open lease, or the zero Lease.
func (c *Client) Lease() wire.Lease {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lease
}

// call sends one call and decodes the answer into out. A refusal comes
// back as a *wire.Error; a broken connection as ErrClosed.
func (c *Client) call(call wire.Call, in, out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	body := []byte("{}")
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	c.out = wire.AppendFrame(c.out[:0], []byte{byte(call)}, body)
	body, err := c.exchange(call)
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(body, out)
}

// Decode sends one decode step in binary form (wire.CallDecode): one
// token for each sequence in d, through the open lease. The outcome is
// written into res, whose slices are reused, so a steady stream of steps
// allocates nothing. A sequence's own failure is in res.Errors; a refusal
// of the whole step is a *wire.Error; a broken connection is ErrClosed.
func (c *Client) Decode(d *wire.Decode, res *wire.DecodeResult) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lease.Lease == "" {
		return wire.Errorf(wire.CodeNoLease, "no lease open on this client: call Open first")
	}
	c.out = append(c.out[:0], 0, 0, 0, 0, byte(wire.CallDecode))
	c.out = wire.AppendDecode(c.out, c.lease.Lease, d)
	binary.BigEndian.PutUint32(c.out, uint32(len(c.out)-4))
	body, err := c.exchange(wire.CallDecode)
	if err != nil {
		return err
	}
	return wire.ParseDecodeResult(body, res)
}

// exchange writes the request frame in c.out and returns the body of a
// 200 answer. Any other status comes back as its *wire.Error; a failed
// read or write closes the connection and comes back as ErrClosed.
func (c *Client) exchange(call wire.Call) ([]byte, error) {
	if c.dead {
		return nil, ErrClosed
	}
	status, body, err := c.roundTrip()
	if err != nil {
		c.dead = true
		c.c.Close()
		return nil, fmt.Errorf("%w: %v", ErrClosed, err)
	}
	if status != http.StatusOK {
		var e wire.Error
		if json.Unmarshal(body, &e) != nil || e.Code == "" {
			return nil, fmt.Errorf("gpuagent client: call %d: status %d", call, status)
		}
		return nil, &e
	}
	return body, nil
}

func (c *Client) roundTrip() (int, []byte, error) {
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write(c.out); err != nil {
		return 0, nil, err
	}
	var err error
	if c.in, err = wire.ReadFrame(c.r, c.in, 1<<30); err != nil {
		return 0, nil, err
	}
	if len(c.in) < 2 {
		return 0, nil, fmt.Errorf("a %d-byte answer", len(c.in))
	}
	return int(binary.BigEndian.Uint16(c.in)), c.in[2:], nil
}
