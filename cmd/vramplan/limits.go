package main

// This file bounds what clients can make `vramplan serve` hold: the time to
// send a request (headers, then body), to read a response and to sit idle
// between requests, and the connections open at once. The handler bounds
// its own work (web.Limits); these are what only a listening server can
// bound, the ones the Workers entry gets from the platform instead.

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// serveLimits bound the native server. A field's zero value means its default.
type serveLimits struct {
	ReadHeader time.Duration // to send a request's headers; 5 s
	Read       time.Duration // to send a whole request, body included (8 MiB at most); 30 s
	Write      time.Duration // to read a whole response (gguf.wasm is ~11 MB, ~3 MB gzipped); 60 s
	Idle       time.Duration // between requests on a kept-alive connection; 60 s
	MaxConns   int           // connections open at once, the excess closed at accept; 512
}

func (l serveLimits) withDefaults() serveLimits {
	or := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	or(&l.ReadHeader, 5*time.Second)
	or(&l.Read, 30*time.Second)
	or(&l.Write, 60*time.Second)
	or(&l.Idle, 60*time.Second)
	if l.MaxConns <= 0 {
		l.MaxConns = 512
	}
	return l
}

// newServer returns a server for h bounded by l.
func newServer(h http.Handler, l serveLimits) *http.Server {
	l = l.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.Read,
		WriteTimeout: l.Write, IdleTimeout: l.Idle}
}

// limitConns returns ln with at most max connections open at once. Unlike
// x/net/netutil.LimitListener, which stops accepting at the cap and leaves
// new clients queued in the kernel, it accepts and closes the excess at
// once (as gpuagent's server does), so a flood of idle connections sheds
// only the flood's newcomers and clients learn at once.
func limitConns(ln net.Listener, max int) net.Listener {
	return &connLimit{Listener: ln, max: int64(max)}
}

type connLimit struct {
	net.Listener
	max  int64
	open atomic.Int64
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &countedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		c.Close()
	}
}

type countedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
