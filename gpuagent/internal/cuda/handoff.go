package cuda

// This file is how work reaches the driver thread. A goroutine locked to
// its OS thread that blocks on a channel parks the thread, and waking a
// parked thread costs tens of microseconds (measured 35–55 µs on a 2-core
// VM), as much as the VMM call it carries. So both sides spin for a short
// window before they block: the driver thread after each job, the caller
// while its job runs.

import (
	"sync"
	"sync/atomic"
	"time"
)

// Spin windows: how long the driver thread polls for the next job after
// one, and how long a caller polls for its job's completion before parking.
const (
	serveSpin = 500 * time.Microsecond
	waitSpin  = 200 * time.Microsecond
)

// A handoff passes jobs, one at a time, to the goroutine running serve.
// There is one job slot, reused: mu keeps a single job in flight.
type handoff struct {
	mu     sync.Mutex
	f      func()
	seq    atomic.Uint64 // jobs submitted; the server runs job seq
	done   atomic.Uint64 // jobs finished
	parked atomic.Bool   // the caller is blocked on woken
	woken  chan struct{} // the server signals a parked caller; buffered
	wake   chan struct{} // the caller nudges a parked server; buffered
	closed atomic.Bool
	exited chan struct{}
}

func (h *handoff) init() {
	h.woken = make(chan struct{}, 1)
	h.wake = make(chan struct{}, 1)
	h.exited = make(chan struct{})
}

// do runs f on the server and waits for it.
func (h *handoff) do(f func()) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed.Load() {
		return ErrClosed
	}
	h.f = f
	n := h.seq.Add(1)
	nudge(h.wake)
	h.wait(n)
	h.f = nil
	return nil
}

// wait spins until job n is done, then parks.
func (h *handoff) wait(n uint64) {
	t := time.Now()
	for i := 0; h.done.Load() != n; i++ {
		if i%64 != 63 || time.Since(t) < waitSpin {
			continue
		}
		h.parked.Store(true)
		if h.done.Load() == n && h.parked.CompareAndSwap(true, false) {
			return // finished before the server saw us park
		}
		<-h.woken
		return
	}
}

// serve runs jobs until close.
func (h *handoff) serve() {
	defer close(h.exited)
	last := time.Now()
	for i := 0; ; i++ {
		if n := h.seq.Load(); n != h.done.Load() {
			h.f()
			h.done.Store(n)
			if h.parked.CompareAndSwap(true, false) {
				h.woken <- struct{}{}
			}
			last = time.Now()
			continue
		}
		if h.closed.Load() {
			return
		}
		if i%64 == 63 && time.Since(last) > serveSpin {
			<-h.wake
			last = time.Now()
		}
	}
}

func nudge(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// close stops the server after the job in flight and waits for it to exit.
func (h *handoff) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed.Swap(true) {
		return
	}
	nudge(h.wake)
	<-h.exited
}
