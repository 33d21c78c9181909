package server

// This file serves the pool connection (wire.PoolProtocol): the agent's
// KV pool handed to an engine process as file descriptors, over the Unix
// socket only, never TCP.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

func (s *Server) pool(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != wire.PoolProtocol {
		reply(w, wire.Errorf(wire.CodeBadRequest, "want Upgrade: %s", wire.PoolProtocol))
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		reply(w, wire.Errorf(wire.CodeInternal, "connection cannot be upgraded"))
		return
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	uc := unixConn(c)
	if uc == nil {
		rw.WriteString("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		rw.Flush()
		c.Close()
		return
	}
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + wire.PoolProtocol + "\r\n\r\n")
	if rw.Flush() != nil {
		c.Close()
		return
	}
	pc := newPoolConn(c, uc, rw.Reader)
	id := r.Header.Get(wire.PoolLeaseHeader)
	if err := s.a.AttachPool(id, pc); err != nil {
		pc.refuse(err)
		return
	}
	s.framed.Store(c, uint64(0))
	go func() {
		<-pc.done
		s.framed.Delete(c)
		s.a.PoolClosed(id, pc)
	}()
}

// unixConn returns the Unix socket under c, or nil when c is not one.
func unixConn(c net.Conn) *net.UnixConn {
	if cc, ok := c.(*countedConn); ok {
		c = cc.Conn
	}
	uc, _ := c.(*net.UnixConn)
	return uc
}

// poolConn is the agent's end of one pool connection: it implements
// agent.PoolClient. One goroutine reads the client's answers.
type poolConn struct {
	c    net.Conn
	uc   *net.UnixConn
	mu   sync.Mutex // one message in flight
	acks chan wire.PoolAck
	done chan struct{} // closed when the connection fails or closes
	once sync.Once
}

func newPoolConn(c net.Conn, uc *net.UnixConn, r *bufio.Reader) *poolConn {
	pc := &poolConn{c: c, uc: uc, acks: make(chan wire.PoolAck, 4), done: make(chan struct{})}
	go pc.read(r)
	return pc
}

func (pc *poolConn) read(r *bufio.Reader) {
	defer pc.Close()
	var buf []byte
	for {
		var err error
		if buf, err = wire.ReadFrame(r, buf, 1<<16); err != nil {
			return
		}
		var ack wire.PoolAck
		if wire.Unmarshal(buf, &ack) != nil {
			return
		}
		select {
		case pc.acks <- ack:
		default: // an answer nobody asked for: the client is broken
			return
		}
	}
}

// Push implements agent.PoolClient. The agent calls it from its
// goroutine for this client, never holding its lock, so a client that
// does not answer delays only its own lease.
func (pc *poolConn) Push(msg *wire.PoolMsg, fds []int, deadline time.Time) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if err := pc.send(msg, fds, deadline); err != nil {
		select {
		case <-pc.done:
			return fmt.Errorf("%w: %v", agent.ErrPoolClosed, err)
		default:
		}
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
			return fmt.Errorf("%w: %v", agent.ErrPoolClosed, err)
		}
		return err
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case ack := <-pc.acks:
		return answered(msg, ack)
	case <-pc.done:
		select { // an answer read before the connection closed counts
		case ack := <-pc.acks:
			return answered(msg, ack)
		default:
			return agent.ErrPoolClosed
		}
	case <-t.C:
		return fmt.Errorf("no answer to %s of %d chunks in time", msg.Op, len(msg.Chunks))
	}
}

func answered(msg *wire.PoolMsg, ack wire.PoolAck) error {
	switch {
	case ack.Seq != msg.Seq:
		return fmt.Errorf("answered message %d, want %d", ack.Seq, msg.Seq)
	case ack.Error != "":
		return fmt.Errorf("the client answered %.256q", ack.Error) // its text, cut: it reaches logs and the lease's next call
	}
	return nil
}

// send writes msg as one frame, its descriptors attached to the first
// bytes.
func (pc *poolConn) send(msg *wire.PoolMsg, fds []int, deadline time.Time) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	frame := wire.AppendFrame(nil, nil, body)
	pc.c.SetWriteDeadline(deadline)
	if len(fds) > 0 {
		n, _, err := pc.uc.WriteMsgUnix(frame, syscall.UnixRights(fds...), nil)
		if err != nil {
			return fmt.Errorf("sending %d descriptors: %w", len(fds), err)
		}
		frame = frame[n:]
	}
	if _, err := pc.c.Write(frame); err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	return nil
}

// refuse tells the client why it cannot map the pool and closes.
func (pc *poolConn) refuse(e *wire.Error) {
	pc.send(&wire.PoolMsg{Op: wire.PoolError, Error: e.Error()}, nil, time.Now().Add(time.Second))
	pc.Close()
}

// Close implements agent.PoolClient.
func (pc *poolConn) Close() {
	pc.once.Do(func() {
		close(pc.done)
		pc.c.Close()
	})
}
