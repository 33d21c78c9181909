package gguf

// This file decodes a GGUF header from an io.ReaderAt into gguf-parser-go's
// own GGUFFile. The library parses only paths and URLs, and its reader issues
// one small read per field (about 130k for an 8B model's tokenizer); in a
// browser each read crosses into JavaScript, so the header is decoded here
// from blocks read ahead, and gguf-parser-go takes over from the GGUFFile:
// tensor sizes, file types and its llama.cpp estimator. Tests check that
// this decoder and ParseGGUFFile produce equal GGUFFiles.
//
// Every count and length is bounded by the bytes left in the file and by the
// limits below before anything is allocated.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	parser "github.com/gpustack/gguf-parser-go"
)

// Limits on what a header may claim.
const (
	maxHeaderBytes = 1 << 30 // metadata and tensor infos of one file
	maxString      = 1 << 24 // one string read (chat templates run to ~100 KiB): no more than maxMetadataBytes keeps
	maxArray       = 1 << 24 // items of one metadata array
	// maxTensors bounds the tensor infos of a model, over all its files:
	// llama.cpp stores each layer's experts as one tensor, so a real model
	// has about a thousand (DeepSeek-V3 and Llama-3.1-405B ~1,100), and the
	// planner's 4,096 layers of 16 fit; 2^20 of them in each of 32 splits
	// would have been 33M infos held together.
	maxTensors = 1 << 16
	// maxMetadata bounds the metadata entries of one file, and
	// maxMetadataBytes the bytes of the keys and string values kept from
	// a model's files (arrays are skipped or bounded by maxLayerValues;
	// gguf-split keeps the metadata in the first split): a real GGUF
	// has 30 to 60 entries, the chat template the longest string (~100
	// KiB), and a 63 MB header of 3.1M entries took 7.5 s and 635 MB (#31).
	maxMetadata      = 1 << 12
	maxMetadataBytes = 16 << 20
	maxDepth         = 4       // nesting of arrays of arrays
	maxLayerValues   = 1 << 12 // items of a per-layer array: block_count's bound (meta.go)
)

// errTruncated reports a header that runs past the end of its file.
var errTruncated = errors.New("truncated GGUF header")

// blockReader reads a file front to back from an io.ReaderAt in blocks.
type blockReader struct {
	r     io.ReaderAt
	size  int64
	pos   int64  // offset of the next byte
	buf   []byte // bytes of the file from bufAt
	bufAt int64
	block int
	bo    binary.ByteOrder
	v     parser.GGUFVersion
	kept  *int64 // bytes of metadata kept by the whole decode (maxMetadataBytes)
}

// next returns the next n bytes, valid until the following call.
func (b *blockReader) next(n int64) ([]byte, error) {
	if n < 0 || n > b.size-b.pos {
		return nil, fmt.Errorf("%w: %d bytes wanted at offset %d of %d", errTruncated, n, b.pos, b.size)
	}
	if b.pos > maxHeaderBytes {
		return nil, fmt.Errorf("GGUF header runs past %d bytes", maxHeaderBytes)
	}
	start := b.pos - b.bufAt
	if b.bufAt > b.pos || start+n > int64(len(b.buf)) {
		if err := b.fill(n); err != nil {
			return nil, err
		}
		start = 0
	}
	b.pos += n
	return b.buf[start : start+n], nil
}

// blocks holds read-ahead buffers between headers: in a browser, one
// fresh 8 MiB block per file read made the collector run every few reads.
// Nothing decoded aliases a block (strings are copied out).
var blocks sync.Pool

// fill reads a block (or n bytes, if more) starting at pos.
func (b *blockReader) fill(n int64) error {
	want := min(max(int64(b.block), n), b.size-b.pos)
	if int64(cap(b.buf)) < want {
		b.release()
		b.buf = reuse(want)
	}
	b.buf = b.buf[:want]
	got, err := b.r.ReadAt(b.buf, b.pos)
	if int64(got) < n {
		if err == nil || err == io.EOF {
			err = errTruncated
		}
		return fmt.Errorf("read at offset %d: %w", b.pos, err)
	}
	b.buf, b.bufAt = b.buf[:got], b.pos
	return nil
}

// reuse returns a pooled block of at least n bytes, or a new one.
func reuse(n int64) []byte {
	if p, ok := blocks.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

// release returns b's block to the pool; b holds none after.
func (b *blockReader) release() {
	if cap(b.buf) > 0 {
		buf := b.buf[:0]
		blocks.Put(&buf)
	}
	b.buf, b.bufAt = nil, 0
}

func (b *blockReader) u32() (uint32, error) {
	p, err := b.next(4)
	if err != nil {
		return 0, err
	}
	return b.bo.Uint32(p), nil
}

func (b *blockReader) u64() (uint64, error) {
	p, err := b.next(8)
	if err != nil {
		return 0, err
	}
	return b.bo.Uint64(p), nil
}

// count reads a length: 32 bits in GGUF v1, 64 bits after.
func (b *blockReader) count() (uint64, error) {
	if b.v <= parser.GGUFVersionV1 {
		v, err := b.u32()
		return uint64(v), err
	}
	return b.u64()
}

func (b *blockReader) str() (string, error) {
	n, err := b.count()
	if err != nil {
		return "", err
	}
	if n > maxString || int64(n) > b.size-b.pos {
		return "", fmt.Errorf("string of %d bytes at offset %d exceeds the file or the %d-byte limit", n, b.pos, maxString)
	}
	p, err := b.next(int64(n))
	return string(bytes.TrimSpace(p)), err
}

// value reads one metadata value of type t.
func (b *blockReader) value(t parser.GGUFMetadataValueType, depth int) (any, error) {
	switch t {
	case parser.GGUFMetadataValueTypeString:
		return b.str()
	case parser.GGUFMetadataValueTypeArray:
		return b.array(depth+1, "")
	}
	size, ok := scalarSize[t]
	if !ok {
		return nil, fmt.Errorf("invalid metadata value type %d at offset %d", t, b.pos)
	}
	p, err := b.next(size)
	if err != nil {
		return nil, err
	}
	return scalar(t, p, b.bo), nil
}

var scalarSize = map[parser.GGUFMetadataValueType]int64{
	parser.GGUFMetadataValueTypeUint8: 1, parser.GGUFMetadataValueTypeInt8: 1, parser.GGUFMetadataValueTypeBool: 1,
	parser.GGUFMetadataValueTypeUint16: 2, parser.GGUFMetadataValueTypeInt16: 2,
	parser.GGUFMetadataValueTypeUint32: 4, parser.GGUFMetadataValueTypeInt32: 4, parser.GGUFMetadataValueTypeFloat32: 4,
	parser.GGUFMetadataValueTypeUint64: 8, parser.GGUFMetadataValueTypeInt64: 8, parser.GGUFMetadataValueTypeFloat64: 8,
}

func scalar(t parser.GGUFMetadataValueType, p []byte, bo binary.ByteOrder) any {
	switch t {
	case parser.GGUFMetadataValueTypeUint8:
		return p[0]
	case parser.GGUFMetadataValueTypeInt8:
		return int8(p[0])
	case parser.GGUFMetadataValueTypeBool:
		return p[0] != 0
	case parser.GGUFMetadataValueTypeUint16:
		return bo.Uint16(p)
	case parser.GGUFMetadataValueTypeInt16:
		return int16(bo.Uint16(p))
	case parser.GGUFMetadataValueTypeUint32:
		return bo.Uint32(p)
	case parser.GGUFMetadataValueTypeInt32:
		return int32(bo.Uint32(p))
	case parser.GGUFMetadataValueTypeFloat32:
		return math.Float32frombits(bo.Uint32(p))
	case parser.GGUFMetadataValueTypeUint64:
		return bo.Uint64(p)
	case parser.GGUFMetadataValueTypeInt64:
		return int64(bo.Uint64(p))
	}
	return math.Float64frombits(bo.Uint64(p))
}

// keptArrays are the arrays the models need, by key suffix; the others (the
// tokenizer's) are skipped as gguf-parser-go's SkipLargeMetadata skips them,
// keeping their length, offset and size.
var keptArrays = []string{".feed_forward_length", ".attention.head_count", ".attention.head_count_kv", ".attention.sliding_window_pattern"}

// keep reports whether the array at key is decoded: a per-layer array, not
// an array nested in another.
func keep(key string) bool {
	return key != "" && slices.ContainsFunc(keptArrays, func(s string) bool { return strings.HasSuffix(key, s) })
}

// skip moves past n bytes without reading them.
func (b *blockReader) skip(n int64) error {
	if n < 0 || n > b.size-b.pos {
		return fmt.Errorf("%w: %d bytes to skip at offset %d of %d", errTruncated, n, b.pos, b.size)
	}
	b.pos += n
	return nil
}

func (b *blockReader) skipArray(v *parser.GGUFMetadataKVArrayValue) error {
	if size, ok := scalarSize[v.Type]; ok {
		if v.Len > uint64(b.size) {
			return fmt.Errorf("%w: array of %d items", errTruncated, v.Len)
		}
		return b.skip(int64(v.Len) * size)
	}
	if v.Type != parser.GGUFMetadataValueTypeString {
		return fmt.Errorf("array of type %d at offset %d cannot be skipped", v.Type, b.pos)
	}
	for i := uint64(0); i < v.Len; {
		// Calls of at most skipRun strings: a JavaScript engine compiles
		// a hot function again, optimized, for its next call, not the one
		// it is in, so one long call would run unoptimized to the end.
		k := b.skipBuffered(min(v.Len-i, skipRun))
		if i += k; i == v.Len {
			break
		}
		if k == skipRun {
			continue
		}
		n, err := b.count() // a length across a block boundary: the reader refills
		if err == nil {
			err = b.skip(int64(min(n, math.MaxInt64)))
		}
		if err != nil {
			return fmt.Errorf("array item %d: %w", i, err)
		}
		i++
	}
	return nil
}

// skipRun is how many strings one call of skipBuffered walks at most.
const skipRun = 4096

// skipBuffered moves past up to n strings whose lengths lie in the
// buffer, reading each length in place: the tokenizer's hundreds of
// thousands of strings cost a loop, not two calls each. It stops at a
// length outside the buffer, one claiming more than the file holds, or
// past the header limit, and leaves those to the checked path.
func (b *blockReader) skipBuffered(n uint64) uint64 {
	w := int64(8)
	if b.v <= parser.GGUFVersionV1 {
		w = 4
	}
	little := b.bo == binary.LittleEndian
	var done uint64
	for ; done < n && b.bufAt <= b.pos && b.pos <= maxHeaderBytes; done++ {
		i := b.pos - b.bufAt
		if i+w > int64(len(b.buf)) {
			break
		}
		l := lengthAt(b.buf[i:], w, little)
		if l > uint64(b.size-b.pos-w) {
			break
		}
		b.pos += w + int64(l)
	}
	return done
}

// lengthAt reads a w-byte length at the start of p.
func lengthAt(p []byte, w int64, little bool) uint64 {
	switch {
	case w == 8 && little:
		return binary.LittleEndian.Uint64(p)
	case w == 8:
		return binary.BigEndian.Uint64(p)
	case little:
		return uint64(binary.LittleEndian.Uint32(p))
	}
	return uint64(binary.BigEndian.Uint32(p))
}

func (b *blockReader) array(depth int, key string) (any, error) {
	v := parser.GGUFMetadataKVArrayValue{StartOffset: b.pos}
	t, err := b.u32()
	if err != nil {
		return v, err
	}
	v.Type = parser.GGUFMetadataValueType(t)
	if v.Len, err = b.count(); err != nil {
		return v, err
	}
	start := b.pos
	if depth > maxDepth || v.Len > maxArray || int64(v.Len) > b.size-start {
		return v, fmt.Errorf("array of %d items at offset %d exceeds the file or the %d-item limit (depth %d)", v.Len, start, maxArray, depth)
	}
	if !keep(key) {
		err := b.skipArray(&v)
		v.Size = b.pos - start
		return v, err
	}
	// A per-layer array holds one number per layer: bounded by the layer
	// count's own bound, not by the bytes left (a 64 MiB file of one
	// array took 1.19 GB as boxed values), and decoded into one slice of
	// numbers, never a boxed value per item.
	size, num := scalarSize[v.Type]
	if !num || v.Len > maxLayerValues {
		return v, fmt.Errorf("per-layer array of %d items of type %d, want at most %d numbers (one per layer)", v.Len, v.Type, maxLayerValues)
	}
	p, err := b.next(int64(v.Len) * size)
	if err != nil {
		return v, fmt.Errorf("per-layer array of %d items: %w", v.Len, err)
	}
	la := layerArray{GGUFMetadataKVArrayValue: v, Values: make([]float64, v.Len)}
	for i := range la.Values {
		la.Values[i] = number(v.Type, p[int64(i)*size:], b.bo)
	}
	la.Size = b.pos - start
	return la, nil
}

// A layerArray is a per-layer metadata array, decoded straight into its
// numbers: Array stays nil and Values holds one number per item (a bool
// as 0 or 1). A float64 holds every integer a count may be exactly.
type layerArray struct {
	parser.GGUFMetadataKVArrayValue
	Values []float64
}

// number reads the scalar of type t (numeric) at the start of p.
func number(t parser.GGUFMetadataValueType, p []byte, bo binary.ByteOrder) float64 {
	switch t {
	case parser.GGUFMetadataValueTypeUint8:
		return float64(p[0])
	case parser.GGUFMetadataValueTypeInt8:
		return float64(int8(p[0]))
	case parser.GGUFMetadataValueTypeBool:
		return float64(min(p[0], 1))
	case parser.GGUFMetadataValueTypeUint16:
		return float64(bo.Uint16(p))
	case parser.GGUFMetadataValueTypeInt16:
		return float64(int16(bo.Uint16(p)))
	case parser.GGUFMetadataValueTypeUint32:
		return float64(bo.Uint32(p))
	case parser.GGUFMetadataValueTypeInt32:
		return float64(int32(bo.Uint32(p)))
	case parser.GGUFMetadataValueTypeFloat32:
		return float64(math.Float32frombits(bo.Uint32(p)))
	case parser.GGUFMetadataValueTypeUint64:
		return float64(bo.Uint64(p))
	case parser.GGUFMetadataValueTypeInt64:
		return float64(int64(bo.Uint64(p)))
	}
	return math.Float64frombits(bo.Uint64(p))
}
