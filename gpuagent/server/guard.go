package server

// This file keeps web pages out of the agent. A browser cannot reach a Unix
// socket, but any page it shows can send requests to a loopback port: a
// form or fetch with a text/plain body needs no preflight (cross-site
// request forgery), and a page whose name is rebound to 127.0.0.1 sends its
// own name as Host (DNS rebinding). So on TCP the agent refuses any request
// that carries an Origin or Sec-Fetch-Site header (browsers add them; the
// agent's clients never do), any Host that is not a loopback name, and any
// POST whose body is not declared application/json, which no page can send
// to another origin without a preflight the agent does not answer.

import (
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// guard wraps h with the checks above, and the bearer token when one is
// set, for requests that came over TCP.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tcp, _ := r.Context().Value(tcpKey{}).(bool); tcp {
			if err := fromBrowser(r); err != nil {
				w.Header().Set("Connection", "close")
				reply(w, err)
				return
			}
			if s.token != nil && !s.token.allows(r) {
				s.token.refuse(w, r)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// metricsOnly answers GET /metrics alone on a connection accepted past the
// cap, and closes it after one request.
func metricsOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if only, _ := r.Context().Value(metricsOnlyKey{}).(bool); only {
			w.Header().Set("Connection", "close")
			if r.Method != http.MethodGet || r.URL.Path != "/metrics" {
				reply(w, wire.Errorf(wire.CodeUnavailable, "the agent is at its connection cap; a connection past it may only GET /metrics"))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// fromBrowser returns why r looks like a web page's request, or nil.
func fromBrowser(r *http.Request) *wire.Error {
	if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" {
		return wire.Errorf(wire.CodeForbidden, "requests from web pages are refused")
	}
	if !loopbackHost(r.Host) {
		return wire.Errorf(wire.CodeForbidden, "Host %.64q is not a loopback name", r.Host)
	}
	if r.Method == http.MethodPost {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return wire.Errorf(wire.CodeMediaType, "a POST body must be Content-Type: application/json")
		}
	}
	return nil
}

// loopbackHost reports whether host (with or without a port) names this
// machine: localhost, a loopback address, or the names the agent's own
// clients send (gpuagent, agent).
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	switch strings.ToLower(host) {
	case "localhost", "gpuagent", "agent":
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
