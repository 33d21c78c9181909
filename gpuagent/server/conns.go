package server

// This file decides which connections the server holds. It closes at
// accept what is over the caps — the connection cap (Config.MaxConns), a
// few past it for /metrics alone (Config.MetricsConns), and a cap per peer
// (Config.MaxPeerConns: per uid on the Unix socket, per address on TCP) —
// after first closing a connection that makes room: the oldest that has
// sent nothing yet, else an idle one that holds no lease. A connection
// must send its first byte within Config.FirstByteTimeout. So connections
// that never send a byte (1,100 of them shed every scrape and every new
// lease, on both transports) cost their opener a reconnect every few
// seconds and cannot keep one client out; one peer cannot hold every slot.

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// A registry is the accepted connections the server may close to make
// room, and how many each peer holds.
type registry struct {
	mu     sync.Mutex
	silent map[*countedConn]struct{} // nothing received yet
	peers  map[string]int
}

func (g *registry) add(c *countedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.silent == nil {
		g.silent, g.peers = map[*countedConn]struct{}{}, map[string]int{}
	}
	g.silent[c] = struct{}{}
	g.peers[c.peer]++
}

func (g *registry) spoke(c *countedConn) {
	g.mu.Lock()
	delete(g.silent, c)
	g.mu.Unlock()
}

func (g *registry) remove(c *countedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.silent, c)
	if g.peers[c.peer]--; g.peers[c.peer] <= 0 {
		delete(g.peers, c.peer)
	}
}

func (g *registry) count(peer string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peers[peer]
}

// oldestSilent returns the connection accepted first of those that have
// sent nothing, of peer alone unless peer is "", and of the /metrics
// slots or not as metricsOnly says; nil if there is none.
func (g *registry) oldestSilent(peer string, metricsOnly bool) *countedConn {
	g.mu.Lock()
	defer g.mu.Unlock()
	var old *countedConn
	for c := range g.silent {
		if (peer == "" || c.peer == peer) && c.metricsOnly == metricsOnly && (old == nil || c.accepted.Before(old.accepted)) {
			old = c
		}
	}
	return old
}

// limitListener admits or closes each connection it accepts.
type limitListener struct {
	net.Listener
	s *Server
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if cc := l.s.accept(c); cc != nil {
			return cc, nil
		}
	}
}

// accept counts c in, on the API or on a /metrics slot, making room when
// a cap is reached; it closes c and returns nil when none can be made.
func (s *Server) accept(c net.Conn) *countedConn {
	now := time.Now()
	cfg := &s.cfg
	cc := &countedConn{Conn: c, s: s, peer: peerOf(c), accepted: now, firstBy: now.Add(cfg.FirstByteTimeout)}
	if cfg.MaxPeerConns > 0 && s.book.count(cc.peer) >= cfg.MaxPeerConns && !s.evict(cc.peer, false) && !s.evict(cc.peer, true) {
		return s.refuse(c)
	}
	switch n := s.open.Add(1); {
	case n <= int64(cfg.MaxConns) || s.evict("", false):
	case n <= int64(cfg.MaxConns+cfg.MetricsConns) || cfg.MetricsConns > 0 && s.evict("", true):
		cc.metricsOnly, cc.until = true, now.Add(cfg.MetricsTimeout)
	default:
		s.open.Add(-1)
		return s.refuse(c)
	}
	s.book.add(cc)
	c.SetReadDeadline(cc.clampRead(time.Time{}))
	c.SetWriteDeadline(cc.clampWrite(time.Time{}))
	return cc
}

func (s *Server) refuse(c net.Conn) *countedConn {
	s.shed.Add(1)
	c.Close()
	return nil
}

// evict closes one connection to make room: the oldest that has sent
// nothing yet, else (not for the /metrics slots, whose connections close
// after one request) an idle HTTP connection that holds no lease; of peer
// alone unless peer is "". It reports whether it closed one.
func (s *Server) evict(peer string, metricsOnly bool) bool {
	if c := s.book.oldestSilent(peer, metricsOnly); c != nil {
		c.Close()
		s.evicted.Add(1)
		return true
	}
	if metricsOnly {
		return false
	}
	evicted := false
	s.idle.Range(func(k, _ any) bool {
		c := k.(*countedConn)
		id, ok := s.conns.Load(net.Conn(c))
		if !ok || peer != "" && c.peer != peer || s.a.HoldsLeases(id.(uint64)) {
			return true
		}
		s.idle.Delete(k)
		c.Close()
		s.evicted.Add(1)
		evicted = true
		return false
	})
	return evicted
}

// peerOf names the client behind c: its uid on a Unix socket (where the
// kernel says; "unix" where it cannot), its address on TCP.
func peerOf(c net.Conn) string {
	switch c := c.(type) {
	case *net.UnixConn:
		return unixPeer(c)
	case *net.TCPConn:
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			return "ip:" + a.IP.String()
		}
	}
	return "other"
}

// countedConn is an accepted connection, counted until it closes. Until
// its first byte arrives no read deadline reaches past firstBy; one
// accepted past the cap serves /metrics alone, and no deadline set on it
// reaches past until.
type countedConn struct {
	net.Conn
	s           *Server
	once        sync.Once
	peer        string
	accepted    time.Time
	firstBy     time.Time
	spoke       atomic.Bool
	metricsOnly bool
	until       time.Time
	mu          sync.Mutex
	wantRead    time.Time // the read deadline last asked for
}

func (c *countedConn) clampWrite(t time.Time) time.Time {
	if c.metricsOnly && (t.IsZero() || t.After(c.until)) {
		return c.until
	}
	return t
}

func (c *countedConn) clampRead(t time.Time) time.Time {
	t = c.clampWrite(t)
	if !c.spoke.Load() && (t.IsZero() || t.After(c.firstBy)) {
		return c.firstBy
	}
	return t
}

func (c *countedConn) SetDeadline(t time.Time) error {
	c.SetWriteDeadline(t)
	return c.SetReadDeadline(t)
}

func (c *countedConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wantRead = t
	return c.Conn.SetReadDeadline(c.clampRead(t))
}

func (c *countedConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clampWrite(t))
}

// Read reads; the first byte lifts the first-byte deadline, restoring the
// one the server last asked for.
func (c *countedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && !c.spoke.Load() {
		c.mu.Lock()
		c.spoke.Store(true)
		c.Conn.SetReadDeadline(c.clampRead(c.wantRead))
		c.mu.Unlock()
		c.s.book.spoke(c)
	}
	return n, err
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.s.open.Add(-1)
		c.s.book.remove(c)
	})
	return c.Conn.Close()
}

// uidPeer names a Unix peer by its uid.
func uidPeer(uid uint32) string { return "uid:" + strconv.FormatUint(uint64(uid), 10) }
