// Package bridge serves an http.Handler to the worker's loader
// (cmd/worker/pool.mjs), one request at a time, for as long as the Go
// instance lives. syumai/workers' own Serve answers one request and lets
// the program end, so its loader starts a fresh instance for every request,
// about 20 ms of CPU each; here the loader keeps each instance and sends it
// request after request.
//
// A request crosses as plain values: its method, URL, header lines and the
// body the loader has read (at most MaxBody+1 bytes), and the answer comes
// back the same way, buffered whole. Nothing of a request outlives its
// answer on the Go side: the handler is the only state kept between
// requests, with whatever immutable caches it holds.
//
// This file is the part that needs no JavaScript: the request a crossing
// makes and the response recorder, so they are tested natively.
package bridge

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// newRequest returns the request the loader described: lines alternates
// header names and values, one a line (neither can hold a newline in a
// Fetch API Headers object), and body is nil for a request without one.
func newRequest(ctx context.Context, method, rawURL, lines string, body []byte) (*http.Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bridge: the request's URL: %w", err)
	}
	if u.Host == "" || !strings.HasPrefix(u.Scheme, "http") {
		return nil, fmt.Errorf("bridge: the request's URL %q is not absolute", rawURL)
	}
	h, err := header(lines)
	if err != nil {
		return nil, err
	}
	r := &http.Request{Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Host: u.Host, RequestURI: u.RequestURI(), Body: http.NoBody}
	if host := h.Get("Host"); host != "" {
		r.Host = host
	}
	switch n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); {
	case err == nil && n >= 0:
		r.ContentLength = n
	case body == nil:
		r.ContentLength = 0
	default:
		r.ContentLength = -1 // a streamed body of unknown length, as a chunked one natively
	}
	if body != nil {
		r.Body = bodyReader{bytes.NewReader(body)}
	}
	return r.WithContext(ctx), nil
}

type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

// header parses the alternating name and value lines of newRequest.
func header(lines string) (http.Header, error) {
	h := http.Header{}
	if lines == "" {
		return h, nil
	}
	f := strings.Split(lines, "\n")
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("bridge: %d header lines, not name and value pairs", len(f))
	}
	for i := 0; i < len(f); i += 2 {
		h.Add(f[i], f[i+1])
	}
	return h, nil
}

// recorder is the http.ResponseWriter a request is served into: it keeps
// the status, header and body whole for the loader and gives them as
// net/http's server would have sent them (the first WriteHeader wins, a
// body without a Content-Type is sniffed, HEAD and the bodiless statuses
// send no body). It is not safe for concurrent use, as a ResponseWriter
// need not be.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

// Header implements http.ResponseWriter.
func (w *recorder) Header() http.Header { return w.header }

// WriteHeader implements http.ResponseWriter. Informational statuses but
// 101 are interim answers the loader cannot send; they are dropped.
func (w *recorder) WriteHeader(code int) {
	if w.status != 0 || (code >= 100 && code < 200 && code != http.StatusSwitchingProtocols) {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("bridge: invalid WriteHeader code %v", code)) // as net/http's server does
	}
	w.status = code
}

// Write implements http.ResponseWriter.
func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	return w.body.Write(p)
}

// Flush implements http.Flusher; the answer leaves whole, when the handler
// returns.
func (w *recorder) Flush() {}

// answer returns what the handler wrote as the loader sends it: the status,
// the header as alternating name and value lines, and the body, nil where
// none is sent (HEAD, the bodiless statuses).
func (w *recorder) answer(method string) (status int, lines string, body []byte) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if _, typed := w.header["Content-Type"]; !typed && w.body.Len() > 0 {
		w.header.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(w.header)) { // in net/http's order
		vs := w.header[name]
		if !token(name) {
			continue // net/http's server drops a header it cannot write
		}
		for _, v := range vs {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(name)
			b.WriteByte('\n')
			b.WriteString(headerValue.Replace(v))
		}
	}
	if method != http.MethodHead && bodyAllowed(w.status) {
		body = w.body.Bytes()
		if body == nil {
			body = []byte{}
		}
	}
	return w.status, b.String(), body
}

// token reports whether name is a header name a Fetch API Headers object
// takes (an RFC 9110 token).
func token(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return name != ""
}

// headerValue replaces the line breaks a header value cannot carry with
// spaces, as net/http's server does when it writes one.
var headerValue = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

// bodyAllowed reports whether status may carry a body, as net/http's
// bodyAllowedForStatus, with 205 (Reset Content), which a Fetch API
// Response refuses a body for too.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status < 200 || status == http.StatusNoContent ||
		status == http.StatusResetContent || status == http.StatusNotModified)
}
