package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web"
)

// from sends a refused upload (422, which counts against its client's
// hour) from the connection peer with the forwarding header xff, and
// returns the status.
func (s *server) from(t *testing.T, peer, xff string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/uploads", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = peer
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec.Code
}

// oneClient checks that the requests, each a peer and a header, are one
// client's, against an hourly limit of one: the first is counted and
// refused as malformed (422), every later one is over the limit (429).
func oneClient(t *testing.T, opts web.UploadOptions, reqs [][2]string) {
	t.Helper()
	opts.PerClientHour = 1
	s := newServer(t, opts)
	for i, r := range reqs {
		want := http.StatusTooManyRequests
		if i == 0 {
			want = http.StatusUnprocessableEntity
		}
		if got := s.from(t, r[0], r[1]); got != want {
			t.Errorf("request %d from %q, X-Forwarded-For %q: %d, want %d (one client)", i, r[0], r[1], got, want)
		}
	}
}

// distinct checks that the requests are each a client of its own.
func distinct(t *testing.T, opts web.UploadOptions, reqs [][2]string) {
	t.Helper()
	opts.PerClientHour = 1
	s := newServer(t, opts)
	for i, r := range reqs {
		if got := s.from(t, r[0], r[1]); got != http.StatusUnprocessableEntity {
			t.Errorf("request %d from %q, X-Forwarded-For %q: %d, want 422 (a client of its own)", i, r[0], r[1], got)
		}
	}
}

// TestClientRightmost checks that behind a proxy the client is the entry
// the proxy appended, the rightmost, and not what the client itself put in
// the header: a client that rotates the leftmost entry is one client.
func TestClientRightmost(t *testing.T) {
	xff := web.UploadOptions{ClientHeader: "X-Forwarded-For"}
	oneClient(t, xff, [][2]string{
		{"10.0.0.1:5000", "203.0.113.7"},
		{"10.0.0.1:5001", "1.1.1.1, 203.0.113.7"},
		{"10.0.0.1:5002", "2.2.2.2, 3.3.3.3,203.0.113.7"},
		{"10.0.0.1:5003", "not an address, 203.0.113.7"},
	})
	distinct(t, xff, [][2]string{
		{"10.0.0.1:5000", "203.0.113.7, 198.51.100.1"},
		{"10.0.0.1:5000", "203.0.113.7, 198.51.100.2"},
		{"10.0.0.1:5000", ""}, // no header: the proxy itself
	})
}

// TestClientTrustedProxies checks a chain of configured proxies: their own
// entries are passed over from the right, and a connection from outside
// them is its own client whatever its header says.
func TestClientTrustedProxies(t *testing.T) {
	opts := web.UploadOptions{ClientHeader: "X-Forwarded-For",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}}
	oneClient(t, opts, [][2]string{
		{"10.0.0.1:5000", "198.51.100.2"},
		{"10.0.0.1:5000", "6.6.6.6, 198.51.100.2, 10.0.0.5"},
		{"[fd00::1]:5000", "7.7.7.7, 198.51.100.2, fd00::9, 10.1.2.3"},
	})
	oneClient(t, opts, [][2]string{
		{"203.0.113.9:5000", "198.51.100.2"},
		{"203.0.113.9:5001", "198.51.100.3"}, // not a proxy: the header is its own
	})
}

// TestClientSpellings checks that eight spellings of one IPv6 address, in
// the header and on the connection, are one client, and an IPv4 address
// the same as its IPv4-mapped form.
func TestClientSpellings(t *testing.T) {
	oneClient(t, web.UploadOptions{ClientHeader: "X-Forwarded-For"}, [][2]string{
		{"10.0.0.1:1", "2001:db8:85a3::8a2e:370:7334"},
		{"10.0.0.1:1", "2001:DB8:85A3::8A2E:370:7334"},
		{"10.0.0.1:1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"},
		{"10.0.0.1:1", "2001:db8:85a3:0:0:8a2e:370:7334"},
		{"10.0.0.1:1", "[2001:db8:85a3::8a2e:370:7334]"},
		{"10.0.0.1:1", "[2001:db8:85a3::8a2e:370:7334]:443"},
		{"10.0.0.1:1", "2001:db8:85a3::8a2e:370:7334%eth0"},
		{"10.0.0.1:1", " 2001:db8:85a3:0::8a2e:0370:7334 "},
	})
	oneClient(t, web.UploadOptions{}, [][2]string{
		{"[2001:db8:85a3::8a2e:370:7334]:1", ""},
		{"[2001:0DB8:85a3:0:0:8a2e:370:7334]:2", ""},
	})
	oneClient(t, web.UploadOptions{}, [][2]string{{"192.0.2.44:3", ""}, {"[::ffff:192.0.2.44]:4", ""}, {"[::ffff:c000:22c]:5", ""}})
}

// TestClientIPv6Block checks that an IPv6 client is its /64: the
// addresses one subscriber is handed are one client, the next /64 another.
func TestClientIPv6Block(t *testing.T) {
	oneClient(t, web.UploadOptions{}, [][2]string{
		{"[2001:db8:1:2::1]:1", ""},
		{"[2001:db8:1:2:ffff:ffff:ffff:fffe]:1", ""},
		{"[2001:db8:1:2:a:b:c:d]:1", ""},
	})
	distinct(t, web.UploadOptions{}, [][2]string{
		{"[2001:db8:1:2::1]:1", ""},
		{"[2001:db8:1:3::1]:1", ""},
		{"[2001:db9:1:2::1]:1", ""},
		{"192.0.2.1:1", ""},
		{"192.0.2.2:1", ""},
	})
}
