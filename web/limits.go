package web

// This file bounds what one request can make the app hold: the bytes of
// request bodies being read at once, the requests that plan at once, the
// uploads checked and stored at once, and the work of one plan, which
// stops when its request is cancelled. These
// limits live in the handler, not in the server around it, so every entry
// point (`vramplan serve`, the Workers entry) inherits them; the native
// server adds its own timeouts and connection cap (cmd/vramplan).

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/semaphore"

	"github.com/vramplan/vramplan/planner"
)

// Limits bound the app's work. The zero value is the default.
type Limits struct {
	// MaxPlanning is the number of requests that plan at once (pages,
	// /api/plan, /api/view); more wait for a slot while their client
	// stays. 0 means 2×GOMAXPROCS.
	MaxPlanning int `json:"max_planning,omitempty"`
	// MaxBodyBytes is the request-body bytes being read at once, summed
	// over requests; a request reserves its Content-Length (the largest
	// document when it has none) before reading. 0 means 64 MiB.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// MaxUploading is the uploads (calibrations and observations) being
	// checked and stored at once. An upload past it is refused at once
	// with 503 and Retry-After, so a server offered more uploads than it
	// can store answers the excess cheaply, not every upload late: 256
	// uploads in hand are at most 16 MiB of bodies and, at about half a
	// millisecond of CPU each, some 60 ms of work on two cores. 0 means 256.
	MaxUploading int `json:"max_uploading,omitempty"`
}

// limiter holds the slots Limits describe. It is safe for concurrent use.
type limiter struct {
	planning, uploading chan struct{}
	bodies              *semaphore.Weighted
}

func newLimiter(l Limits) *limiter {
	if l.MaxPlanning <= 0 {
		l.MaxPlanning = 2 * runtime.GOMAXPROCS(0)
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 64 << 20
	}
	if l.MaxUploading <= 0 {
		l.MaxUploading = 256
	}
	return &limiter{planning: make(chan struct{}, l.MaxPlanning), uploading: make(chan struct{}, l.MaxUploading),
		bodies: semaphore.NewWeighted(l.MaxBodyBytes)}
}

// errGone is a request whose client left before it was served.
var errGone = errors.New("web: the request was cancelled")

// plan runs f in a planning slot, waiting for one while ctx lives.
func (l *limiter) plan(ctx context.Context, f func() error) error {
	select {
	case l.planning <- struct{}{}:
	case <-ctx.Done():
		return errGone
	}
	defer func() { <-l.planning }()
	return f()
}

// errUploading refuses an upload while MaxUploading others are in hand.
var errUploading = errors.New("too many uploads are being stored at once: retry in a second")

// upload takes an upload slot and reports whether one was free; uploaded
// gives it back. When none is free it sets Retry-After.
func (l *limiter) upload(c echo.Context) bool {
	select {
	case l.uploading <- struct{}{}:
		return true
	default:
		c.Response().Header().Set("Retry-After", "1")
		return false
	}
}

func (l *limiter) uploaded() { <-l.uploading }

// readBody reads the request's body, at most planner.MaxDocument+1 bytes,
// holding its share of the body budget while it reads.
func (l *limiter) readBody(c echo.Context) ([]byte, error) {
	r := c.Request()
	n := int64(planner.MaxDocument + 1)
	if r.ContentLength > planner.MaxDocument {
		return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, "the body is more than 8 MiB")
	} else if r.ContentLength >= 0 {
		n = r.ContentLength
	}
	if err := l.bodies.Acquire(r.Context(), n); err != nil {
		return nil, errGone
	}
	defer l.bodies.Release(n)
	return io.ReadAll(io.LimitReader(r.Body, n))
}

// report plans in with ReportWith, stopping when ctx is cancelled.
func report(ctx context.Context, in planner.Input) (planner.Plan, error) {
	p, err := planner.ReportWith(in, planner.Options{Stop: func() bool { return ctx.Err() != nil }})
	if errors.Is(err, planner.ErrStopped) {
		return p, errGone
	}
	return p, err
}

// statusClientClosed is what a log shows for a request whose client left;
// the client never reads it (nginx's 499).
const statusClientClosed = 499
