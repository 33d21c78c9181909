package main

// This file bounds what clients can make `vramplan serve` hold: the time to
// send a request (headers, then body), to read a response and to sit idle
// between requests, and the connections open at once, in all and per peer
// (an address, an IPv6 /64). The handler bounds
// its own work (web.Limits); these are what only a listening server can
// bound, the ones the Workers entry gets from the platform instead.

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/vramplan/vramplan/web"
)

// serveLimits bound the native server. A field's zero value means its default.
type serveLimits struct {
	ReadHeader time.Duration // to send a request's headers; 5 s
	Read       time.Duration // to send a whole request, body included (8 MiB at most); 30 s
	Write      time.Duration // to read a whole response (gguf.wasm is ~11 MB, ~3 MB gzipped); 60 s
	Idle       time.Duration // between requests on a kept-alive connection; 60 s
	MaxConns   int           // connections open at once, the excess closed at accept; 512
	// MaxPerPeer is the connections one peer (an address, an IPv6 /64, as
	// web.PeerKey counts clients) holds at once, the excess closed at
	// accept; 64, an eighth of MaxConns, so one peer's keep-alives cannot
	// take every slot (512 from one client reset every fresh client, #31
	// point 12) while a browser's six, or a few behind one NAT, fit.
	MaxPerPeer int
	// Proxies are exempt from MaxPerPeer: every client behind a trusted
	// proxy (--trusted-proxy) connects through it.
	Proxies []netip.Prefix
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
	if l.MaxPerPeer <= 0 {
		l.MaxPerPeer = 64
	}
	return l
}

// newServer returns a server for h bounded by l.
func newServer(h http.Handler, l serveLimits) *http.Server {
	l = l.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.Read,
		WriteTimeout: l.Write, IdleTimeout: l.Idle}
}

// limitConns returns ln with at most l.MaxConns connections open at once,
// and at most l.MaxPerPeer of one peer's. Unlike x/net/netutil's
// LimitListener, which stops accepting at the cap and leaves new clients
// queued in the kernel, it accepts and closes the excess at once (as
// gpuagent's server does), so a flood of idle connections sheds only the
// flood's newcomers and clients learn at once.
func limitConns(ln net.Listener, l serveLimits) net.Listener {
	l = l.withDefaults()
	return &connLimit{Listener: ln, max: l.MaxConns, perPeer: l.MaxPerPeer, proxies: l.Proxies, peers: map[string]int{}}
}

// connLimit counts the open connections, in all and per peer. It is safe
// for concurrent use.
type connLimit struct {
	net.Listener
	max, perPeer int
	proxies      []netip.Prefix
	mu           sync.Mutex
	open         int
	peers        map[string]int // open connections by web.PeerKey
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		peer := web.PeerKey(c.RemoteAddr().String())
		if l.admit(peer, l.exempt(c.RemoteAddr())) {
			return &countedConn{Conn: c, l: l, peer: peer}, nil
		}
		c.Close()
	}
}

// admit counts a connection of peer and reports whether it is within the
// caps; a peer that is exempt has only the global one.
func (l *connLimit) admit(peer string, exempt bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max || !exempt && l.peers[peer] >= l.perPeer {
		return false
	}
	l.open++
	l.peers[peer]++
	return true
}

func (l *connLimit) release(peer string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.peers[peer]--; l.peers[peer] <= 0 {
		delete(l.peers, peer)
	}
}

// exempt reports whether a connection comes from a trusted proxy.
func (l *connLimit) exempt(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	if !ok || len(l.proxies) == 0 {
		return false
	}
	ip := ta.AddrPort().Addr().Unmap()
	for _, p := range l.proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

type countedConn struct {
	net.Conn
	l    *connLimit
	peer string
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.release(c.peer) })
	return c.Conn.Close()
}
