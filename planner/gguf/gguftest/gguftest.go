// Package gguftest writes GGUF files for tests: llama.cpp's layout, with
// the metadata and tensor names and types llama.cpp writes for a config,
// and a data section that is sized but never written (sparse on disk,
// zeros through an io.ReaderAt).
package gguftest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner/internal/arch"
)

// Tensor is one tensor info: dimensions innermost first, as ggml orders them.
type Tensor struct {
	Name string
	Dims []uint64
	Type parser.GGMLType
}

// File is the header of a GGUF file.
type File struct {
	KVs     []arch.KV
	Tensors []Tensor
}

const alignment = 32

// Header encodes f's header and reports the size of the whole file.
func (f *File) Header() ([]byte, int64) {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	w(uint32(parser.GGUFMagicGGUFLe))
	w(uint32(3))
	w(uint64(len(f.Tensors)))
	w(uint64(len(f.KVs)))
	for _, kv := range f.KVs {
		writeString(&b, kv.Key)
		writeValue(&b, kv.Value)
	}
	var off uint64
	for _, t := range f.Tensors {
		writeString(&b, t.Name)
		w(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			w(d)
		}
		w(uint32(t.Type))
		w(off)
		off += pad(tensorBytes(t))
	}
	head := int64(pad(uint64(b.Len())))
	b.Write(make([]byte, head-int64(b.Len())))
	return b.Bytes(), head + int64(off)
}

func pad(n uint64) uint64 { return (n + alignment - 1) / alignment * alignment }

func tensorBytes(t Tensor) uint64 {
	return parser.GGUFTensorInfo{NDimensions: uint32(len(t.Dims)), Dimensions: t.Dims, Type: t.Type}.Bytes()
}

func writeString(b *bytes.Buffer, s string) {
	binary.Write(b, binary.LittleEndian, uint64(len(s)))
	b.WriteString(s)
}

func writeValue(b *bytes.Buffer, v any) {
	w := func(x any) { binary.Write(b, binary.LittleEndian, x) }
	switch x := v.(type) {
	case uint32:
		w(uint32(parser.GGUFMetadataValueTypeUint32))
		w(x)
	case int32:
		w(uint32(parser.GGUFMetadataValueTypeInt32))
		w(x)
	case uint16:
		w(uint32(parser.GGUFMetadataValueTypeUint16))
		w(x)
	case float32:
		w(uint32(parser.GGUFMetadataValueTypeFloat32))
		w(x)
	case bool:
		w(uint32(parser.GGUFMetadataValueTypeBool))
		w(x)
	case string:
		w(uint32(parser.GGUFMetadataValueTypeString))
		writeString(b, x)
	default:
		writeArray(b, v)
	}
}

func writeArray(b *bytes.Buffer, v any) {
	w := func(x any) { binary.Write(b, binary.LittleEndian, x) }
	w(uint32(parser.GGUFMetadataValueTypeArray))
	switch x := v.(type) {
	case []uint32:
		w(uint32(parser.GGUFMetadataValueTypeUint32))
		w(uint64(len(x)))
		w(x)
	case []int32:
		w(uint32(parser.GGUFMetadataValueTypeInt32))
		w(uint64(len(x)))
		w(x)
	case []bool:
		w(uint32(parser.GGUFMetadataValueTypeBool))
		w(uint64(len(x)))
		w(x)
	case []string:
		w(uint32(parser.GGUFMetadataValueTypeString))
		w(uint64(len(x)))
		for _, s := range x {
			writeString(b, s)
		}
	default:
		panic(fmt.Sprintf("gguftest: cannot write %T", v))
	}
}

// Write writes f to path: the header, then a sparse data section.
func (f *File) Write(path string) error {
	h, size := f.Header()
	if err := os.WriteFile(path, h, 0o644); err != nil {
		return err
	}
	return os.Truncate(path, size)
}

// Reader returns an io.ReaderAt over f, zeros after the header, and its size.
func (f *File) Reader() (io.ReaderAt, int64) {
	h, size := f.Header()
	return zeroTail{h}, size
}

type zeroTail struct{ head []byte }

func (z zeroTail) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	if off < int64(len(z.head)) {
		copy(p, z.head[off:])
	}
	return len(p), nil
}

// Split divides f as gguf-split does: the first file keeps the metadata,
// each file carries split.no, split.count and split.tensors.count, and the
// tensors are shared out in order.
func (f *File) Split(n int) []*File {
	out := make([]*File, n)
	per := (len(f.Tensors) + n - 1) / n
	for i := range out {
		keys := []arch.KV{{Key: "split.no", Value: uint16(i)}, {Key: "split.count", Value: uint16(n)},
			{Key: "split.tensors.count", Value: int32(len(f.Tensors))}}
		if i == 0 {
			keys = append(append([]arch.KV{}, f.KVs...), keys...)
		}
		lo, hi := min(i*per, len(f.Tensors)), min((i+1)*per, len(f.Tensors))
		out[i] = &File{KVs: keys, Tensors: f.Tensors[lo:hi]}
	}
	return out
}
