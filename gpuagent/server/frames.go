package server

// This file serves the framed form of the API (wire.FramesProtocol) on a
// connection upgraded from HTTP: one goroutine reads a frame, runs the
// call and writes the answer, with none of net/http's per-request work.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != wire.FramesProtocol {
		reply(w, wire.Errorf(wire.CodeBadRequest, "want Upgrade: %s", wire.FramesProtocol))
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		reply(w, wire.Errorf(wire.CodeInternal, "connection cannot be upgraded"))
		return
	}
	conn := connOf(r)
	c, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	s.framed.Store(c, conn)
	defer func() {
		s.framed.Delete(c)
		c.Close()
		s.a.CloseConn(conn)
	}()
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + wire.FramesProtocol + "\r\n\r\n")
	if rw.Flush() != nil {
		return
	}
	s.serveFrames(c, rw.Reader, conn)
}

// serveFrames answers frames until the connection fails or idles out.
func (s *Server) serveFrames(c net.Conn, r *bufio.Reader, conn agent.Conn) {
	calls := map[wire.Call]endpoint{}
	for _, ep := range s.endpoints() {
		calls[ep.call] = ep
	}
	fr := &reqBuf{g: &s.budget}
	defer fr.free()
	var dec decodeState
	out := new(bytes.Buffer)
	for {
		err := s.readFrame(c, r, fr)
		if err != nil && err != errBusy {
			return
		}
		in := fr.buf
		out.Reset()
		out.Write([]byte{0, 0, 0, 0, 0, 0}) // length and status, filled in below
		var status int
		switch {
		case err == errBusy:
			status = encode(out, s.busy())
		case wire.Call(in[0]) == wire.CallDecode:
			status = s.decodeFrame(&dec, conn, in[1:], out)
		default:
			status = encode(out, s.frameCall(calls, conn, in))
		}
		fr.trim()
		b := out.Bytes()
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		binary.BigEndian.PutUint16(b[4:], uint16(status))
		c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := c.Write(b); err != nil {
			return
		}
	}
}

// readFrame reads one request frame into fr: its header within the idle
// timeout, the rest within the read timeout of the header, so a partial
// frame is held no longer. A frame the budget cannot hold is read and
// dropped (errBusy); one over MaxBody+1 bytes or of none is an error.
func (s *Server) readFrame(c net.Conn, r *bufio.Reader, fr *reqBuf) error {
	c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
	if _, err := io.ReadFull(r, fr.head[:]); err != nil {
		return err
	}
	size := int(binary.BigEndian.Uint32(fr.head[:]))
	if size > wire.MaxBody+1 || size < 1 {
		return fmt.Errorf("frame of %d bytes, want 1 to %d", size, wire.MaxBody+1)
	}
	c.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	return fr.readN(r, size)
}

func (s *Server) frameCall(calls map[wire.Call]endpoint, conn agent.Conn, in []byte) any {
	ep, ok := calls[wire.Call(in[0])]
	if !ok {
		return wire.Errorf(wire.CodeBadRequest, "unknown call %d", in[0])
	}
	if len(in)-1 > wire.MaxBody {
		return wire.Errorf(wire.CodeTooLarge, "body over %d bytes", wire.MaxBody)
	}
	res, err := ep.do(conn, in[1:])
	if err != nil {
		return err
	}
	return res
}

// decodeState is one connection's reused decode-step buffers and the
// last lease id it named, so a steady stream of binary decode steps
// allocates nothing.
type decodeState struct {
	d     wire.Decode
	res   wire.DecodeResult
	lease string
}

// decodeFrame answers a binary decode step (wire.CallDecode) into out and
// returns the status: 200 with the binary answer, or a JSON error.
func (s *Server) decodeFrame(st *decodeState, conn agent.Conn, body []byte, out *bytes.Buffer) int {
	lease, err := wire.ParseDecode(body, &st.d)
	if err == nil {
		if string(lease) != st.lease {
			st.lease = string(lease)
		}
		err = s.a.Decode(conn, st.lease, &st.d, &st.res)
	}
	if err != nil {
		return encode(out, err)
	}
	out.Write(wire.AppendDecodeResult(out.AvailableBuffer(), &st.res))
	return http.StatusOK
}
