// Package client is the Go client of gpuagent's engine API (package wire).
//
// A Client owns one connection, and a lease lives on the connection that
// opened it: closing the Client, or losing the connection, ends the lease
// and releases everything it held. Calls on one Client are serialized; an
// engine's scheduler makes one Step call per step.
//
// A Client is safe for concurrent use. Whoever dialed it closes it.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
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
	mu    sync.Mutex
	c     net.Conn
	r     *bufio.Reader
	w     *bytes.Buffer
	lease wire.Lease
	dead  bool
	stop  chan struct{}
	// renewing is set once the background renewal runs; it renews
	// whatever lease the Client holds.
	renewing bool
}

// Dial connects to the agent at spec: "unix:PATH" or "HOST:PORT".
func Dial(ctx context.Context, spec string) (*Client, error) {
	network, addr := "tcp", spec
	if p, ok := strings.CutPrefix(spec, "unix:"); ok {
		network, addr = "unix", p
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("gpuagent client: %w", err)
	}
	return &Client{c: c, r: bufio.NewReaderSize(c, 64<<10), w: new(bytes.Buffer), stop: make(chan struct{})}, nil
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

// call posts in to path and decodes the answer into out. A refusal comes
// back as a *wire.Error.
func (c *Client) call(method, path string, in, out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return ErrClosed
	}
	status, body, err := c.roundTrip(method, path, in)
	if err != nil {
		c.dead = true
		c.c.Close()
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	if status != http.StatusOK {
		var e wire.Error
		if json.Unmarshal(body, &e) != nil || e.Code == "" {
			return fmt.Errorf("gpuagent client: %s %s: HTTP %d", method, path, status)
		}
		return &e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

func (c *Client) roundTrip(method, path string, in any) (int, []byte, error) {
	c.w.Reset()
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return 0, nil, err
		}
	}
	c.w.WriteString(method + " " + path + " HTTP/1.1\r\nHost: gpuagent\r\nContent-Type: application/json\r\nContent-Length: ")
	c.w.WriteString(strconv.Itoa(len(body)))
	c.w.WriteString("\r\n\r\n")
	c.w.Write(body)
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write(c.w.Bytes()); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b := make([]byte, max(resp.ContentLength, 0))
	if resp.ContentLength >= 0 {
		_, err = io.ReadFull(resp.Body, b)
	} else {
		b, err = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, b, err
}
