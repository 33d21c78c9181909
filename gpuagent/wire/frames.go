package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frames are the same calls without HTTP's per-request cost, for engines
// that call once per scheduler step. A client asks for them on a fresh
// connection with
//
//	GET /v1/frames HTTP/1.1
//	Connection: Upgrade
//	Upgrade: gpuagent-frames/1
//
// and after "101 Switching Protocols" the connection carries frames both
// ways. A request frame is a 4-byte big-endian length, then that many
// bytes: one Call byte and the call's JSON body. A response frame is a
// 4-byte big-endian length, then a 2-byte big-endian HTTP status and the
// JSON answer (a Error when the status is not 200), except CallDecode,
// whose body and 200 answer are binary (AppendDecode). The framing limits
// are the HTTP API's; a frame over MaxBody+1 bytes ends the connection.
// Leases opened on the connection end when it closes.
const FramesProtocol = "gpuagent-frames/1"

// A Call names the call a request frame carries.
type Call byte

// Calls, one per HTTP endpoint.
const (
	CallOpenLease  Call = 1 + iota // POST /v1/lease
	CallRenew                      // POST /v1/lease/renew
	CallCloseLease                 // POST /v1/lease/close
	CallStep                       // POST /v1/step
	CallAdmit                      // POST /v1/admit
	CallReport                     // GET /v1/report
	CallStats                      // GET /v1/stats
	// CallDecode is a decode step in binary form, frames only: the body
	// and the answer are laid out as binary.go says, not JSON.
	CallDecode
)

// AppendFrame appends a frame holding head and body to dst.
func AppendFrame(dst, head, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(head)+len(body)))
	return append(append(dst, head...), body...)
}

// ReadFrame reads one frame's payload from r into buf (grown as needed)
// and returns it. A frame larger than limit is an error and the stream is
// then unusable. Once buf has grown to the stream's largest frame,
// ReadFrame does not allocate. buf grows with the bytes that arrive, not
// with the size a frame declares, so a peer that declares a megabyte and
// sends a byte costs a few kilobytes (1,000 such frames took 1 GB).
func ReadFrame(r io.Reader, buf []byte, limit int) ([]byte, error) {
	if cap(buf) < 4 {
		buf = make([]byte, 4, 512)
	}
	head := buf[:4] // read through buf: a local array would escape to the heap
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(head))
	if size > limit || size < 1 {
		return nil, fmt.Errorf("frame of %d bytes, want 1 to %d", size, limit)
	}
	if cap(buf) >= size {
		buf = buf[:size]
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	buf = buf[:0]
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(max(cap(buf), 4096), size-len(buf)))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), size)])
		buf = buf[:len(buf)+n]
		if err != nil && len(buf) < size {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}
