package hf

// This file reads safetensors headers: an 8-byte little-endian length, then
// that many bytes of JSON naming every tensor's dtype, shape and byte range.
// Only the header is read; every length is checked against the file's true
// size before anything is allocated.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// MaxHeader bounds a safetensors header: the format's own 100 MB limit.
const MaxHeader = 100 << 20

// Tensor is one tensor of a safetensors file.
type Tensor struct {
	Name  string  `json:"name"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	Bytes int64   `json:"bytes"`
}

// elemBits is the size of each safetensors dtype, in bits.
var elemBits = map[string]int64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64, "F4": 4,
	"F6_E2M3": 6, "F6_E3M2": 6, "C64": 64,
}

// dtypes maps each dtype's name to itself, so a header's dtype is looked
// up without allocating and every tensor shares the one string.
var dtypes = func() map[string]string {
	m := make(map[string]string, len(elemBits))
	for name := range elemBits {
		m[name] = name
	}
	return m
}()

// headers holds header buffers for reuse: a checkpoint's shards are read
// one after another (or a few at once), and a MoE model's headers are
// megabytes each. Buffers over maxPooled are left to the collector.
var headers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 16 << 20

// entry is one tensor of a header: {"dtype", "shape", "data_offsets"}.
type entry struct {
	Dtype   string
	Shape   []int64
	Offsets [2]int64
}

// ReadSafetensors reads the header of a safetensors file of size bytes and
// returns its tensors sorted by name. It reads no weight data.
func ReadSafetensors(r io.ReaderAt, size int64) ([]Tensor, error) {
	buf := headers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooled {
			headers.Put(buf)
		}
	}()
	header, err := readHeader(r, size, buf)
	if err != nil {
		return nil, err
	}
	data := size - 8 - int64(len(header))
	out := make([]Tensor, 0, bytes.Count(header, []byte(`"data_offsets"`)))
	spans := make([]span, 0, cap(out))
	sc := &scanner{data: header}
	err = sc.object(func(name string) error {
		if name == "__metadata__" {
			return sc.skip()
		}
		t, off, err := readEntry(sc, name, data)
		out, spans = append(out, t), append(spans, span{off, len(spans)})
		return err
	})
	if err == nil {
		err = sc.end()
	}
	if err == nil {
		err = contiguous(spans, out, data)
	}
	if err != nil {
		return nil, fmt.Errorf("safetensors header: %w", err)
	}
	slices.SortFunc(out, func(a, b Tensor) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, fmt.Errorf("safetensors header: tensor %.200q appears twice", out[i].Name)
		}
	}
	return out, nil
}

// headerLength returns the header length a safetensors file of size bytes
// declares, capped at MaxHeader (ReadSafetensors refuses more), or 0 when
// it cannot be read.
func headerLength(r io.ReaderAt, size int64) int64 {
	var lenBuf [8]byte
	if size < 8 {
		return 0
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return 0
	}
	return int64(min(binary.LittleEndian.Uint64(lenBuf[:]), MaxHeader, uint64(size)))
}

// readHeader reads the header into *buf, growing it as needed. The tensors
// keep copies of what they need from it (names, dtypes, shapes), so the
// buffer is free again once the header is parsed.
func readHeader(r io.ReaderAt, size int64, buf *[]byte) ([]byte, error) {
	var lenBuf [8]byte
	if size < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes is too short for a header", size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors: read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeader || n > uint64(size-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes does not fit a %d-byte file (limit %d)", n, size, MaxHeader)
	}
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	header := (*buf)[:n]
	if _, err := r.ReadAt(header, 8); err != nil {
		return nil, fmt.Errorf("safetensors: read header: %w", err)
	}
	return header, nil
}

// span is one tensor's data_offsets and its index in the header's order.
type span struct {
	off [2]int64
	i   int
}

// contiguous checks that the tensors' byte ranges tile the data section:
// in offset order each starts where the one before it ends, and the last
// ends at the end of the file, as the safetensors library requires
// (safetensors/src/tensor.rs, Metadata::validate: InvalidOffset and
// MetadataIncompleteBuffer). Overlapping ranges would count bytes twice.
func contiguous(spans []span, ts []Tensor, data int64) error {
	slices.SortFunc(spans, func(a, b span) int { return cmpSpan(a.off, b.off) })
	var end int64
	for _, s := range spans {
		if s.off[0] != end {
			return fmt.Errorf("tensor %.200q: data_offsets %v, want it to start at %d, where the tensor before it ends",
				ts[s.i].Name, s.off, end)
		}
		end = s.off[1]
	}
	if end != data {
		return fmt.Errorf("the tensors' data ends at %d of the %d data bytes", end, data)
	}
	return nil
}

func cmpSpan(a, b [2]int64) int {
	if a[0] != b[0] {
		return int(min(max(a[0]-b[0], -1), 1))
	}
	return int(min(max(a[1]-b[1], -1), 1))
}

func readEntry(sc *scanner, name string, data int64) (Tensor, [2]int64, error) {
	var e entry
	err := sc.objectRaw(func(key []byte) (err error) {
		switch string(key) {
		case "dtype":
			e.Dtype, err = dtypeOf(sc)
		case "shape":
			e.Shape, err = sc.ints()
		case "data_offsets":
			e.Offsets, err = sc.pair()
		default:
			err = sc.skip()
		}
		return err
	})
	if err != nil {
		return Tensor{}, e.Offsets, fmt.Errorf("tensor %.200q: %w", name, err)
	}
	if e.Offsets[0] < 0 || e.Offsets[1] < e.Offsets[0] || e.Offsets[1] > data {
		return Tensor{}, e.Offsets, fmt.Errorf("tensor %.200q: data_offsets %v are outside the %d data bytes", name, e.Offsets, data)
	}
	t := Tensor{Name: name, Dtype: e.Dtype, Shape: e.Shape, Bytes: e.Offsets[1] - e.Offsets[0]}
	return t, e.Offsets, checkShape(&t)
}

// dtypeOf reads a dtype, sharing the string of a known one.
func dtypeOf(sc *scanner) (string, error) {
	raw, escaped, err := sc.rawStr()
	if err != nil || escaped {
		return "", fmt.Errorf("dtype: %v", err)
	}
	if name, ok := dtypes[string(raw)]; ok {
		return name, nil
	}
	return string(raw), nil
}

// checkShape verifies that a tensor's byte range holds its shape in its dtype.
func checkShape(t *Tensor) error {
	if len(t.Shape) > 8 {
		return fmt.Errorf("safetensors: tensor %.200q has %d dimensions", t.Name, len(t.Shape))
	}
	n := uint64(1)
	for _, d := range t.Shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if d < 0 || hi != 0 || lo > 1<<62 {
			return fmt.Errorf("safetensors: tensor %.200q has shape %v", t.Name, t.Shape)
		}
		n = lo
	}
	b, ok := elemBits[t.Dtype]
	if !ok {
		return fmt.Errorf("safetensors: tensor %.200q has unknown dtype %.40q", t.Name, t.Dtype)
	}
	if hi, bitsN := bits.Mul64(n, uint64(b)); hi != 0 || (bitsN+7)/8 != uint64(t.Bytes) {
		return fmt.Errorf("safetensors: tensor %.200q: data_offsets hold %d bytes, not the size of %s%v",
			t.Name, t.Bytes, t.Dtype, t.Shape)
	}
	return nil
}

// ReadIndex reads a model.safetensors.index.json and returns the shard
// files its weight_map names, sorted. Shard names must be plain file names.
func ReadIndex(data []byte) ([]string, error) {
	files := map[string]bool{}
	sc := &scanner{data: data}
	err := sc.object(func(key string) error {
		if key != "weight_map" {
			return sc.skip()
		}
		var last []byte
		return sc.objectRaw(func([]byte) error {
			raw, escaped, err := sc.rawStr()
			if err != nil || (!escaped && bytes.Equal(raw, last)) {
				return err
			}
			last = raw
			return addShard(files, sc, raw, escaped)
		})
	})
	if err == nil {
		err = sc.end()
	}
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("weight_map is empty")
	}
	if err != nil {
		return nil, fmt.Errorf("safetensors index: %w", err)
	}
	return slices.Sorted(maps.Keys(files)), nil
}

// addShard records one shard name of an index, refusing paths.
func addShard(files map[string]bool, sc *scanner, raw []byte, escaped bool) error {
	f := string(raw)
	if escaped {
		if err := json.Unmarshal(sc.data[sc.pos-len(raw)-2:sc.pos], &f); err != nil {
			return err
		}
	}
	if f == "" || f == "." || f == ".." || strings.ContainsAny(f, `/\`) {
		return fmt.Errorf("shard %.200q is not a file name in the model directory", f)
	}
	files[f] = true
	return nil
}
