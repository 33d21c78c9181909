package web

// This file paces the native server's background refresh of the community
// groups. A refresh re-reads a busy group whole (40 µs an upload here: 0.4 s
// of one core for a group of 10,000), and refreshShare spaces refreshes so
// that they take a tenth of a core on average; but each one held a core
// for its whole length, and while it ran the uploads had one core left,
// queued, and met the refresh as their latency's tail. A paced refresh reads
// the group a page at a time and after each page rests refreshShare-1
// times what the page took, so it never holds more than a tenth of a core,
// at any moment. A request waiting for the groups (a list, a new group's
// first uploads) ends the resting: it gets the refresh at full speed. The
// worker does not pace: its refresh reads D1 through the runtime, and its
// instance serves one request at a time.

import (
	"context"
	"sync/atomic"
	"time"
)

// pacedPage is the uploads a paced refresh reads at a time: about a
// millisecond of one core. Reading a page makes only short system calls
// (SQLite's preads), so the goroutine never gives up its processor until
// it rests; with pages of 256 (10 ms here, 4.6 ms on the lent GPU
// machine), an execution trace of the uploads at 2,000/s on 2 cores caught
// a page read holding one processor while the other waited in the log's
// fsync, and for those 4.6 ms nothing else ran: not the uploads already
// in, nor the timer of the benchmark's next upload.
const pacedPage = 32

// A pacer paces one background refresh.
type pacer struct {
	waiting *atomic.Int32 // the requests waiting for a refresh
	slept   time.Duration
}

type pacerKey struct{}

func withPacer(ctx context.Context, p *pacer) context.Context {
	return context.WithValue(ctx, pacerKey{}, p)
}

// pacerOf returns ctx's pacer, nil when the refresh is not paced.
func pacerOf(ctx context.Context) *pacer {
	p, _ := ctx.Value(pacerKey{}).(*pacer)
	return p
}

// rest sleeps refreshShare-1 times busy, unless a request is waiting for
// the refresh or ctx ends first, and counts what it slept.
func (p *pacer) rest(ctx context.Context, busy time.Duration) {
	if p == nil || p.waiting.Load() > 0 {
		return
	}
	t0 := time.Now()
	t := time.NewTimer((refreshShare - 1) * busy)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	p.slept += time.Since(t0)
}
