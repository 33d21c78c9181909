package client

// This file maps the agent's KV pool into this process (wire's pool
// connection): a second connection to the agent's Unix socket that
// receives one file descriptor per committed chunk and imports it, so a
// block id the agent hands out is memory this process can read and write.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// An Importer maps chunks of memory another process exported as POSIX
// file descriptors into one address range of this process: vmm.Importer
// on a GPU, gpuagenttest.FileImporter without one. Map leaves fd open.
type Importer interface {
	Reserve(size, align int64) (base uint64, err error)
	Map(fd int, off, size int64) error
	Unmap(off, size int64) error
	Close() error
}

// A Pool is the agent's global KV pool mapped into this process: block b
// is at Addr(b) here and at the same offset in the agent. It follows the
// pool as it grows and shrinks until Close, or until the agent ends the
// lease. A Pool is safe for concurrent use.
type Pool struct {
	Layout wire.PoolLayout
	Base   uint64 // where the reserved range starts in this process

	imp   Importer
	c     *net.UnixConn
	fr    *fdReader
	r     *bufio.Reader
	mu    sync.Mutex
	maps  map[int64]int64 // offset -> size
	err   error
	done  chan struct{}
	times []time.Duration
}

// MapPool maps the agent's KV pool for the Client's open lease through
// imp, which it owns from then on. It returns once every committed chunk
// is mapped. The agent must be reached on a Unix socket: descriptors do
// not cross TCP.
func (c *Client) MapPool(ctx context.Context, imp Importer) (*Pool, error) {
	path, ok := strings.CutPrefix(c.spec, "unix:")
	lease := c.Lease().Lease
	switch {
	case !ok:
		return nil, fmt.Errorf("gpuagent client: the KV pool is shared only over a Unix socket, not %q", c.spec)
	case lease == "":
		return nil, wire.Errorf(wire.CodeNoLease, "no lease open on this client: call Open first")
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("gpuagent client: %w", err)
	}
	p := &Pool{imp: imp, c: nc.(*net.UnixConn), maps: map[int64]int64{}, done: make(chan struct{})}
	p.fr = &fdReader{c: p.c}
	p.r = bufio.NewReaderSize(p.fr, 64<<10)
	if err := p.start(lease); err != nil {
		p.shut()
		return nil, fmt.Errorf("gpuagent client: mapping the KV pool: %w", err)
	}
	go p.serve()
	return p, nil
}

// start upgrades the connection and maps the first message's chunks.
func (p *Pool) start(lease string) error {
	p.c.SetDeadline(time.Now().Add(30 * time.Second))
	defer p.c.SetDeadline(time.Time{})
	req := "GET /v1/pool HTTP/1.1\r\nHost: gpuagent\r\nConnection: Upgrade\r\nUpgrade: " + wire.PoolProtocol +
		"\r\n" + wire.PoolLeaseHeader + ": " + lease + "\r\n\r\n"
	if _, err := io.WriteString(p.c, req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(p.r, nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return fmt.Errorf("HTTP %d (descriptors are sent only on the agent's Unix socket)", resp.StatusCode)
	}
	msg, err := p.next()
	if err != nil {
		return err
	}
	if msg.Layout == nil {
		return errors.New("the first message carries no layout")
	}
	p.Layout = *msg.Layout
	if p.Base, err = p.imp.Reserve(p.Layout.Reserve, p.Layout.Granularity); err != nil {
		return err
	}
	return p.answer(msg)
}

// next reads one message, and the descriptors a map message carries.
func (p *Pool) next() (*wire.PoolMsg, error) {
	buf, err := wire.ReadFrame(p.r, nil, wire.MaxBody)
	if err != nil {
		return nil, err
	}
	msg := new(wire.PoolMsg)
	if err := json.Unmarshal(buf, msg); err != nil {
		return nil, err
	}
	if msg.Op == wire.PoolError {
		return nil, errors.New(msg.Error)
	}
	return msg, nil
}

// answer does what msg asks and acks it; a failure is acked too, and
// returned.
func (p *Pool) answer(msg *wire.PoolMsg) error {
	var err error
	switch msg.Op {
	case wire.PoolMap:
		err = p.mapAll(msg.Chunks, p.fr.take(len(msg.Chunks)))
	case wire.PoolUnmap:
		err = p.unmapAll(msg.Chunks)
	default:
		err = fmt.Errorf("unknown pool message %q", msg.Op)
	}
	ack := wire.PoolAck{Seq: msg.Seq}
	if err != nil {
		ack.Error = err.Error()
	}
	body, _ := json.Marshal(ack)
	if _, werr := p.c.Write(wire.AppendFrame(nil, nil, body)); werr != nil && err == nil {
		err = werr
	}
	return err
}

// mapAll maps each chunk from its descriptor and closes every descriptor.
func (p *Pool) mapAll(cs []wire.PoolChunk, fds []int) error {
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	if len(fds) != len(cs) {
		return fmt.Errorf("%d descriptors for %d chunks", len(fds), len(cs))
	}
	for i, c := range cs {
		t0 := time.Now()
		if err := p.imp.Map(fds[i], c.Offset, c.Size); err != nil {
			return fmt.Errorf("mapping the chunk at offset %d: %w", c.Offset, err)
		}
		p.mu.Lock()
		p.maps[c.Offset] = c.Size
		p.times = append(p.times, time.Since(t0))
		p.mu.Unlock()
	}
	return nil
}

func (p *Pool) unmapAll(cs []wire.PoolChunk) error {
	for _, c := range cs {
		if err := p.imp.Unmap(c.Offset, c.Size); err != nil {
			return fmt.Errorf("unmapping the chunk at offset %d: %w", c.Offset, err)
		}
		p.mu.Lock()
		delete(p.maps, c.Offset)
		p.mu.Unlock()
	}
	return nil
}

// serve answers the agent's messages until the connection ends.
func (p *Pool) serve() {
	defer close(p.done)
	for {
		msg, err := p.next()
		if err == nil {
			err = p.answer(msg)
		}
		if err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
			p.shut()
			return
		}
	}
}

// Addr returns the address of block b (1 to Layout.Blocks) in this
// process.
func (p *Pool) Addr(b int32) uint64 { return p.Base + uint64(int64(b-1)*p.Layout.BlockBytes) }

// MapTimes returns how long importing and mapping each chunk took, in
// the order the chunks came.
func (p *Pool) MapTimes() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Duration(nil), p.times...)
}

// Mapped returns the bytes mapped from the base now.
func (p *Pool) Mapped() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, size := range p.maps {
		n += size
	}
	return n
}

// Err returns why the pool stopped following the agent, once it has.
func (p *Pool) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Close ends the pool connection, which ends the lease, and unmaps
// everything.
func (p *Pool) Close() error {
	p.c.Close()
	<-p.done
	return nil
}

// shut closes the connection, any descriptor received and not yet taken,
// and the importer with every mapping.
func (p *Pool) shut() {
	p.c.Close()
	for _, fd := range p.fr.take(len(p.fr.fds)) {
		syscall.Close(fd)
	}
	p.mu.Lock()
	clear(p.maps)
	p.mu.Unlock()
	p.imp.Close()
}

// fdReader reads a Unix socket, keeping the descriptors that arrive with
// the bytes, in order.
type fdReader struct {
	c   *net.UnixConn
	mu  sync.Mutex
	fds []int
	oob []byte
}

func (r *fdReader) Read(b []byte) (int, error) {
	if r.oob == nil {
		r.oob = make([]byte, syscall.CmsgSpace(4*wire.MaxPoolFDs))
	}
	n, oobn, _, _, err := r.c.ReadMsgUnix(b, r.oob)
	if oobn > 0 {
		r.keep(r.oob[:oobn])
	}
	return max(n, 0), err
}

func (r *fdReader) keep(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range msgs {
		if fds, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			r.fds = append(r.fds, fds...)
		}
	}
}

// take removes and returns the first n descriptors received (fewer if
// fewer came).
func (r *fdReader) take(n int) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(n, len(r.fds))
	out := append([]int(nil), r.fds[:n]...)
	r.fds = r.fds[n:]
	return out
}
