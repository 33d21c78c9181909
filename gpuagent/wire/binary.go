package wire

// This file is the binary form of a decode step (CallDecode), the one
// call an engine makes every scheduler step with hundreds of numbers
// each way. JSON costs more than the step itself there, so on frames the
// decode step has a fixed little-endian layout that both ends read and
// write into reused buffers, without allocating.
//
// Request body (after the Call byte):
//
//	u8   flags             bit 0: hashes follow the handles; other bits 0
//	u16  lease length L    1 to MaxLease
//	L    lease id
//	u32  n                 sequences, at most MaxBatch
//	n ×  u64 handle
//	n ×  u64 content hash  (only with bit 0; 0: no block completed)
//
// Answer body (status 200; any other status carries a JSON Error):
//
//	u32  n                 as in the request
//	n ×  i32 block id      the block the token added, 0 when none
//	u32  e                 errors, at most n, in index order
//	e ×  { u32 index, u16 length M, M bytes: the Error as JSON }

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
)

// MaxLease is the longest lease id the binary form carries.
const MaxLease = 256

const flagHashes = 1

var le = binary.LittleEndian

// AppendDecode appends the binary request body of a decode step for lease
// (without the Call byte) to dst.
func AppendDecode(dst []byte, lease string, d *Decode) []byte {
	flags := byte(0)
	if len(d.Hashes) > 0 {
		flags = flagHashes
	}
	dst = append(dst, flags)
	dst = le.AppendUint16(dst, uint16(len(lease)))
	dst = append(dst, lease...)
	dst = le.AppendUint32(dst, uint32(len(d.Seqs)))
	for _, h := range d.Seqs {
		dst = le.AppendUint64(dst, h)
	}
	for _, h := range d.Hashes {
		dst = le.AppendUint64(dst, h)
	}
	return dst
}

// ParseDecode reads a binary decode request body into d, reusing d's
// slices, and returns the lease id's bytes (aliasing body). It checks the
// layout and the framing limits; Step.Check's bounds are the caller's.
func ParseDecode(body []byte, d *Decode) (lease []byte, err *Error) {
	r := reader{b: body}
	flags := r.u8()
	n16 := int(r.u16())
	lease = r.bytes(n16)
	n := int(r.u32())
	switch {
	case r.short:
		return nil, Errorf(CodeBadRequest, "decode frame: %d bytes, too short for its header", len(body))
	case flags&^flagHashes != 0:
		return nil, Errorf(CodeBadRequest, "decode frame: unknown flags %#x", flags)
	case n16 == 0 || n16 > MaxLease:
		return nil, Errorf(CodeBadRequest, "decode frame: lease of %d bytes, want 1 to %d", n16, MaxLease)
	case n > MaxBatch:
		return nil, Errorf(CodeTooLarge, "decode.seqs: %d sequences, at most %d", n, MaxBatch)
	}
	words := n
	if flags&flagHashes != 0 {
		words = 2 * n
	}
	if len(r.b) != 8*words {
		return nil, Errorf(CodeBadRequest, "decode frame: %d bytes for %d sequences, want %d", len(r.b), n, 8*words)
	}
	d.Seqs = readU64s(d.Seqs[:0], r.b[:8*n])
	d.Hashes = d.Hashes[:0]
	if flags&flagHashes != 0 {
		d.Hashes = readU64s(d.Hashes, r.b[8*n:])
	}
	return lease, nil
}

// AppendDecodeResult appends the binary answer body of res to dst.
func AppendDecodeResult(dst []byte, res *DecodeResult) []byte {
	dst = le.AppendUint32(dst, uint32(len(res.Blocks)))
	for _, b := range res.Blocks {
		dst = le.AppendUint32(dst, uint32(b))
	}
	dst = le.AppendUint32(dst, uint32(len(res.Errors)))
	for _, e := range res.Errors {
		dst = le.AppendUint32(dst, uint32(e.Index))
		at := len(dst)
		dst = append(dst, 0, 0)
		dst, _ = appendJSON(dst, e.Error)
		le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	}
	return dst
}

// appendJSON appends v's JSON; an Error always encodes and stays far
// under 64 KiB (its message is built from bounded parts).
func appendJSON(dst []byte, e *Error) ([]byte, error) {
	b, err := json.Marshal(e)
	if len(b) > 1<<16-1 {
		b, err = json.Marshal(&Error{Code: e.Code, Message: "(message too long)"})
	}
	return append(dst, b...), err
}

// ParseDecodeResult reads a binary decode answer body into res, reusing
// res's slices. Errors are decoded only when there are any.
func ParseDecodeResult(body []byte, res *DecodeResult) error {
	r := reader{b: body}
	n := int(r.u32())
	if r.short || n > MaxBatch || len(r.b) < 4*n+4 {
		return Errorf(CodeBadRequest, "decode answer: %d bytes, malformed", len(body))
	}
	res.Blocks = res.Blocks[:0]
	for i := 0; i < n; i++ {
		res.Blocks = append(res.Blocks, int32(le.Uint32(r.b[4*i:])))
	}
	r.b = r.b[4*n:]
	e := int(r.u32())
	if e > n {
		return Errorf(CodeBadRequest, "decode answer: %d errors for %d sequences", e, n)
	}
	res.Errors = res.Errors[:0]
	for i := 0; i < e; i++ {
		ie, err := r.indexErr(n)
		if err != nil {
			return err
		}
		res.Errors = append(res.Errors, ie)
	}
	if r.short || len(r.b) != 0 {
		return Errorf(CodeBadRequest, "decode answer: malformed after %d errors", e)
	}
	return nil
}

// reader reads little-endian fields from b; past the end it returns zeros
// and sets short.
type reader struct {
	b     []byte
	short bool
}

func (r *reader) bytes(n int) []byte {
	if len(r.b) < n {
		r.short, r.b = true, nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return le.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return le.Uint32(b)
	}
	return 0
}

func (r *reader) indexErr(n int) (IndexErr, error) {
	i := int(r.u32())
	m := int(r.u16())
	js := r.bytes(m)
	if r.short || i >= n {
		return IndexErr{}, Errorf(CodeBadRequest, "decode answer: error entry malformed or index %d out of %d", i, n)
	}
	e := new(Error)
	if err := json.Unmarshal(js, e); err != nil || e.Code == "" {
		return IndexErr{}, Errorf(CodeBadRequest, "decode answer: error %d is not an Error: %s", i, strconv.Quote(string(js)))
	}
	return IndexErr{Index: i, Error: e}, nil
}

func readU64s(dst []uint64, b []byte) []uint64 {
	for i := 0; i+8 <= len(b); i += 8 {
		dst = append(dst, le.Uint64(b[i:]))
	}
	return dst
}
