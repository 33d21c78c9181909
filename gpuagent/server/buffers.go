package server

// This file bounds the bytes the server holds for what clients send. A
// frame or request body is read into a buffer that grows with the bytes
// that arrive; each connection may hold freeBytes without asking, and
// everything past that, across all connections, comes from one budget
// (Config.MaxBuffered). A request the budget cannot hold is read to its
// end into nothing and refused with 503; a frame must arrive whole within
// the read timeout of its header; and a buffer grown past freeBytes is
// given back when its request is answered, and every buffer when its
// connection closes. 1,000 partial frames of 1 MiB took the agent from 34
// MB to 1.13 GB, and it stayed after they closed.

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// freeBytes is what one connection's buffer holds without the budget:
// every decode step and most JSON steps fit.
const freeBytes = 64 << 10

// A budget counts the bytes buffered: all of them, and those past each
// buffer's freeBytes, which may not exceed max.
type budget struct {
	max  int64
	held atomic.Int64 // every buffer's capacity
	past atomic.Int64 // capacity past freeBytes, against max
}

func (g *budget) take(n int64) bool {
	if g.past.Add(n) > g.max {
		g.past.Add(-n)
		return false
	}
	return true
}

// errBusy is a request the budget cannot hold now.
var errBusy = errors.New("the budget for buffered requests is spent")

// A reqBuf is one connection's or one request's buffer, accounted in a
// budget. Not safe for concurrent use.
type reqBuf struct {
	g    *budget
	buf  []byte
	past int64 // of buf's capacity, the bytes taken from the budget
	head [4]byte
}

// grow makes room for at least n bytes, or reports that the budget
// cannot.
func (b *reqBuf) grow(n int) bool {
	if n <= cap(b.buf) {
		return true
	}
	size := max(n, min(2*cap(b.buf), wire.MaxBody+1), 512)
	need := int64(max(0, size-freeBytes)) - b.past
	if need > 0 && !b.g.take(need) {
		return false
	}
	b.past += max(need, 0)
	nb := make([]byte, len(b.buf), size)
	copy(nb, b.buf)
	b.g.held.Add(int64(size - cap(b.buf)))
	b.buf = nb
	return true
}

// readN reads exactly n bytes into the buffer, growing it as they arrive
// (a peer that declares a megabyte and sends a byte costs a few
// kilobytes). When the budget cannot hold them it reads the rest into
// nothing and returns errBusy.
func (b *reqBuf) readN(r io.Reader, n int) error {
	b.buf = b.buf[:0]
	for len(b.buf) < n {
		if len(b.buf) == cap(b.buf) && !b.grow(min(n, len(b.buf)+max(len(b.buf), 4096))) {
			return b.discard(r, n-len(b.buf))
		}
		k, err := r.Read(b.buf[len(b.buf):min(cap(b.buf), n)])
		b.buf = b.buf[:len(b.buf)+k]
		if err != nil && len(b.buf) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// readAll reads r to its end into the buffer as readN does.
func (b *reqBuf) readAll(r io.Reader) error {
	b.buf = b.buf[:0]
	for {
		if len(b.buf) == cap(b.buf) && !b.grow(len(b.buf)+max(len(b.buf), 4096)) {
			return b.discard(r, -1)
		}
		k, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
		b.buf = b.buf[:len(b.buf)+k]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// discard reads n bytes (all, when n < 0) through the buffer and drops
// them, then returns errBusy, or the read's error.
func (b *reqBuf) discard(r io.Reader, n int) error {
	sink := b.buf[:cap(b.buf)]
	if len(sink) == 0 {
		sink = b.head[:]
	}
	for n != 0 {
		want := len(sink)
		if n > 0 {
			want = min(want, n)
		}
		k, err := r.Read(sink[:want])
		if n > 0 {
			n -= k
		}
		switch {
		case err == io.EOF && n < 0:
			return errBusy
		case err != nil && n != 0:
			return err
		}
	}
	return errBusy
}

// trim gives back what the buffer grew past freeBytes.
func (b *reqBuf) trim() {
	if cap(b.buf) <= freeBytes {
		return
	}
	b.g.held.Add(-int64(cap(b.buf)))
	b.g.past.Add(-b.past)
	b.buf, b.past = nil, 0
}

// free gives back the whole buffer.
func (b *reqBuf) free() {
	b.trim()
	b.g.held.Add(-int64(cap(b.buf)))
	b.buf = nil
}

// bodies are request-body buffers of at most freeBytes, reused.
var bodies = sync.Pool{New: func() any { return new(reqBuf) }}

// readBody reads an HTTP request body into an accounted buffer; the
// caller frees it with putBody.
func (s *Server) readBody(r io.Reader) (*reqBuf, error) {
	b := bodies.Get().(*reqBuf)
	b.g = &s.budget
	b.g.held.Add(int64(cap(b.buf)))
	return b, b.readAll(r)
}

func putBody(b *reqBuf) {
	b.trim()
	b.g.held.Add(-int64(cap(b.buf)))
	b.g = nil
	bodies.Put(b)
}

// Buffered returns the bytes the server holds for what clients have
// sent: every frame and request-body buffer in use.
func (s *Server) Buffered() int64 { return s.budget.held.Load() }

// busy is the refusal of a request the budget cannot hold.
func (s *Server) busy() *wire.Error {
	return wire.Errorf(wire.CodeUnavailable, "the agent holds %d MiB of requests from its connections, the most it buffers (--max-buffered-mib): retry",
		s.cfg.MaxBuffered>>20)
}
