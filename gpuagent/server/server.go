// Package server serves an agent.Agent over HTTP/1.1 on a Unix socket or
// loopback TCP: the wire API for engines and /metrics on one listener, and
// the same API as frames on connections upgraded at /v1/frames.
//
// Each connection gets an id; a lease belongs to the connection that
// opened it, and when that connection closes every lease it opened ends.
// The server bounds what a client can make it hold: request bodies
// (wire.MaxBody), connections (Config.MaxConns and, per peer,
// Config.MaxPeerConns; the excess is closed at accept, after closing a
// connection that has sent nothing yet or an idle one that holds no lease,
// if there is one), the time to a connection's first byte, header and body
// read time, write time and idle time. A few connections past the cap are
// held for /metrics alone (Config.MetricsConns), so a flood of idle
// clients does not blind the scraper. On TCP a bearer token can be
// required (Config.Token).
//
// A Server is safe for concurrent use; the agent serializes the KV work.
package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vramplan/vramplan/gpuagent/agent"
)

// Config bounds a Server. Its zero value is the default.
type Config struct {
	MaxConns     int           // open connections; 0 means 1024
	ReadTimeout  time.Duration // headers and body of one request; 0 means 5 s
	WriteTimeout time.Duration // one response; 0 means 5 s
	IdleTimeout  time.Duration // between requests on a connection; 0 means 2 min
	ReapEvery    time.Duration // lease expiry sweep; 0 means 250 ms
	// MetricsConns is how many connections past MaxConns are accepted to
	// serve one GET /metrics each (anything else there is refused with
	// 503), for at most MetricsTimeout; 0 means 4, -1 none.
	MetricsConns   int
	MetricsTimeout time.Duration // 0 means 2 s
	// FirstByteTimeout is how long a new connection may take to send its
	// first byte; 0 means 2 s.
	FirstByteTimeout time.Duration
	// MaxBuffered caps the bytes buffered for frames and request bodies
	// past each connection's first 64 KiB, across all connections; 0
	// means 64 MiB. A request past it is refused with 503.
	MaxBuffered int64
	// MaxPeerConns caps the connections one peer holds: a uid on the Unix
	// socket, an address on TCP. 0 means three quarters of MaxConns, so
	// one peer never holds every slot; -1 none.
	MaxPeerConns int
	// Token, when set, must come with every request over TCP as
	// "Authorization: Bearer TOKEN" (ReadTokenFile reads one). A Unix
	// socket is guarded by its permission instead.
	Token []byte
}

func (c *Config) defaults() {
	if c.MaxConns == 0 {
		c.MaxConns = 1024
	}
	c.ReadTimeout = orDur(c.ReadTimeout, 5*time.Second)
	c.WriteTimeout = orDur(c.WriteTimeout, 5*time.Second)
	c.IdleTimeout = orDur(c.IdleTimeout, 2*time.Minute)
	c.ReapEvery = orDur(c.ReapEvery, 250*time.Millisecond)
	c.MetricsTimeout = orDur(c.MetricsTimeout, 2*time.Second)
	c.FirstByteTimeout = orDur(c.FirstByteTimeout, 2*time.Second)
	if c.MaxBuffered <= 0 {
		c.MaxBuffered = 64 << 20
	}
	switch {
	case c.MaxPeerConns == 0:
		c.MaxPeerConns = max(1, c.MaxConns*3/4)
	case c.MaxPeerConns < 0:
		c.MaxPeerConns = 0
	}
	switch {
	case c.MetricsConns == 0:
		c.MetricsConns = 4
	case c.MetricsConns < 0:
		c.MetricsConns = 0
	}
}

func orDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// A Server serves one agent.
type Server struct {
	a       *agent.Agent
	cfg     Config
	http    *http.Server
	conns   sync.Map // net.Conn -> agent.Conn, HTTP connections
	framed  sync.Map // net.Conn -> agent.Conn, upgraded to frames
	next    atomic.Uint64
	open    atomic.Int64
	shed    atomic.Uint64
	idle    sync.Map // *countedConn -> struct{}: HTTP connections between requests
	evicted atomic.Uint64
	book    registry
	budget  budget
	reg     *prometheus.Registry
	token   *tokenCheck // nil: no token asked for
	stop    chan struct{}
	once    sync.Once
}

type connKey struct{}

// tcpKey marks a request that came over TCP, which a browser can reach.
type tcpKey struct{}

// metricsOnlyKey marks a connection accepted past the cap, for /metrics.
type metricsOnlyKey struct{}

// New returns a server for a.
func New(a *agent.Agent, cfg Config) *Server {
	cfg.defaults()
	s := &Server{a: a, cfg: cfg, reg: prometheus.NewRegistry(), token: newTokenCheck(cfg.Token), stop: make(chan struct{})}
	s.budget.max = cfg.MaxBuffered
	s.reg.MustRegister(newCollector(s))
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: cfg.ReadTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ConnContext:       s.connContext,
		ConnState:         s.connState,
		ErrorLog:          nil,
	}
	return s
}

// Handler returns the API and /metrics as one handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, ep := range s.endpoints() {
		mux.HandleFunc(ep.method+" "+ep.path, s.route(ep))
	}
	mux.HandleFunc("GET /v1/frames", s.upgrade)
	mux.HandleFunc("GET /v1/pool", s.pool)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return s.guard(metricsOnly(mux))
}

func (s *Server) connContext(ctx context.Context, c net.Conn) context.Context {
	id := s.next.Add(1)
	s.conns.Store(c, id)
	ctx = context.WithValue(ctx, tcpKey{}, c.LocalAddr().Network() == "tcp")
	if cc, ok := c.(*countedConn); ok && cc.metricsOnly {
		ctx = context.WithValue(ctx, metricsOnlyKey{}, true)
	}
	return context.WithValue(ctx, connKey{}, id)
}

func (s *Server) connState(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateIdle:
		s.idle.Store(c, struct{}{})
	case http.StateActive:
		s.idle.Delete(c)
	case http.StateHijacked: // upgraded to frames: the frame loop ends its leases
		s.idle.Delete(c)
		s.conns.Delete(c)
	case http.StateClosed:
		s.idle.Delete(c)
		if id, ok := s.conns.LoadAndDelete(c); ok {
			s.a.CloseConn(id.(uint64))
		}
	}
}

func connOf(r *http.Request) agent.Conn {
	id, _ := r.Context().Value(connKey{}).(uint64)
	return id
}

// Serve accepts connections on l until Shutdown, sweeping expired leases.
func (s *Server) Serve(l net.Listener) error {
	go s.reap()
	err := s.http.Serve(&limitListener{Listener: l, s: s})
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// reap sweeps expired leases, and in its own goroutine shrinks the KV
// pool: a shrink waits (up to the map timeout) for mapping clients to
// unmap, and expiry must not wait behind it.
func (s *Server) reap() {
	go s.every(func() { s.a.Shrink() })
	s.every(func() { s.a.Expire() })
}

// every calls f every ReapEvery until Shutdown.
func (s *Server) every(f func()) {
	t := time.NewTicker(s.cfg.ReapEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// Shutdown stops accepting, closes every connection (which ends their
// leases) and stops the sweep.
func (s *Server) Shutdown(ctx context.Context) error {
	s.once.Do(func() { close(s.stop) })
	err := s.http.Shutdown(ctx)
	s.http.Close()
	s.framed.Range(func(c, _ any) bool {
		c.(net.Conn).Close()
		return true
	})
	return err
}

// Listen opens the listener spec names: "unix:PATH" or "HOST:PORT" on a
// loopback address. A Unix socket is refused when another agent holds the
// lock file beside it (PATH.lock, flock) or answers on it, rather than
// unlinked from under that agent (which orphaned it with its memory and
// leases); a socket file nobody answers on is stale and is replaced. The
// socket is made owner-only (0600), whatever the umask; closing the
// listener removes the socket and releases the lock.
func Listen(spec string) (net.Listener, error) { return ListenMode(spec, SocketMode) }

// SocketMode is the permission a Unix socket is given by Listen: the owner
// alone may connect. Whoever may connect and holds a lease id can map the
// whole KV pool (its descriptors are of whole chunks), so widening it is
// granting that.
const SocketMode fs.FileMode = 0o600

// ListenMode is Listen with the Unix socket's permission mode: 0660 lets
// the socket's group connect too. A mode that does not let the owner read
// and write, or that names more than permission bits, is refused. mode is
// ignored for TCP.
func ListenMode(spec string, mode fs.FileMode) (net.Listener, error) {
	if path, ok := strings.CutPrefix(spec, "unix:"); ok {
		if mode&^fs.ModePerm != 0 || mode&0o600 != 0o600 {
			return nil, fmt.Errorf("--socket-mode %#o: want permission bits that let the owner read and write (0600, 0660, ...)", uint32(mode))
		}
		return listenUnix(path, mode)
	}
	host, _, err := net.SplitHostPort(spec)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: want unix:PATH or HOST:PORT: %v", spec, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--listen %q: TCP only on a loopback address; the API has no authentication", spec)
	}
	return net.Listen("tcp", spec)
}

func listenUnix(path string, mode fs.FileMode) (net.Listener, error) {
	lock, err := lockSocket(path)
	if err != nil {
		return nil, err
	}
	l, err := listenLocked(path, mode)
	if err != nil {
		lock.release()
		return nil, err
	}
	return &lockedListener{Listener: l, lock: lock}, nil
}

// listenLocked listens on path once its lock is held. An agent of an
// earlier version takes no lock, so one answering there is still refused.
func listenLocked(path string, mode fs.FileMode) (net.Listener, error) {
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("--listen unix:%s: another agent is serving on this socket; stop it or choose another path", path)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("--listen unix:%s: the path exists and is not a socket", path)
		}
		os.Remove(path) // stale: nothing answered
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		l.Close()
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	return l, nil
}
