package web

// This file says who a request's client is, for the upload API's limits: an
// address, as the connection or a proxy in front gives it, spelled one way
// and grouped as one network hands them out, then hashed with a key.
//
// Behind a proxy (UploadOptions.ClientHeader), the header is read from the
// right: each proxy appends the address it was connected from, and only the
// entries that trusted proxies appended are facts; whatever the client sent
// in the header itself is to their left. With no TrustedProxies the one
// proxy in front is trusted and its entry, the rightmost, is the client.
// With TrustedProxies, the header counts only when the connection comes
// from one of them, and the entries of trusted proxies are passed over
// from the right to the first that is not one.
//
// An address is one client however it is written (netip's form: IPv6 in
// lowercase and compressed, an IPv4-mapped IPv6 address as IPv4, zones,
// brackets and ports dropped), and an IPv6 client is its /64, the block one
// subscriber is handed (RFC 6177): within it every address is the same
// client's.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ipv6Client is the prefix length of an IPv6 client.
const ipv6Client = 64

// clientAddress returns the client of r, as the key its hash is made of:
// an IPv4 address, an IPv6 /64 prefix, or, when no address can be read,
// the connection's address as given.
func clientAddress(r *http.Request, o *UploadOptions) string {
	if peer, ok := parseAddr(r.RemoteAddr); o.ClientHeader != "" && (len(o.TrustedProxies) == 0 || ok && trusted(peer, o.TrustedProxies)) {
		if a, ok := fromHeader(r.Header.Values(o.ClientHeader), o.TrustedProxies); ok {
			return addressKey(a)
		}
	}
	return PeerKey(r.RemoteAddr)
}

// PeerKey returns the client a connection's remote address ("host:port",
// as net.Conn.RemoteAddr and http.Request.RemoteAddr give it) is, in the
// form the upload limits count clients: an IPv4 address, or an IPv6
// address's /64; an address that cannot be read is itself. vramplan serve
// caps the connections of one peer by it.
func PeerKey(remoteAddr string) string {
	if a, ok := parseAddr(remoteAddr); ok {
		return addressKey(a)
	}
	return remoteAddr
}

// fromHeader returns the client among a forwarding header's entries, read
// from the right, and reports whether one was an address.
func fromHeader(lines []string, proxies []netip.Prefix) (netip.Addr, bool) {
	entries := strings.Split(strings.Join(lines, ","), ",")
	var last netip.Addr
	for i := len(entries) - 1; i >= 0; i-- {
		a, ok := parseAddr(entries[i])
		if !ok {
			break // what is left of it was not appended by a proxy we trust
		}
		last = a
		if !trusted(a, proxies) {
			return a, true
		}
	}
	return last, last.IsValid()
}

// trusted reports whether a is in one of proxies.
func trusted(a netip.Addr, proxies []netip.Prefix) bool {
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads an address as a header entry or a connection gives it:
// bare, in brackets, with a port, with an IPv6 zone; an IPv4-mapped IPv6
// address is its IPv4 address.
func parseAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// addressKey returns the key of the client at a: the address for IPv4, its
// /64 for IPv6.
func addressKey(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(ipv6Client) // a valid IPv6 address always has one
	return p.String()
}

// clientHash returns the keyed hash of the request's client.
func (a *app) clientHash(r *http.Request) string {
	m := hmac.New(sha256.New, a.clientKeyValue(r))
	m.Write([]byte(clientAddress(r, &a.opts)))
	return hex.EncodeToString(m.Sum(nil)[:16])
}
