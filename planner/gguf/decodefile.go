package gguf

import (
	"encoding/binary"
	"fmt"
	"io"

	parser "github.com/gpustack/gguf-parser-go"
)

// Part is one file of a model: a reader over its bytes and its true size.
// A split model (-00001-of-0000N.gguf) is its parts in order.
type Part struct {
	R    io.ReaderAt
	Size int64
}

// decode reads the headers of parts into one GGUFFile, as ParseGGUFFile
// reads the shards of a split model.
func decode(parts []Part, block int) (gf *parser.GGUFFile, err error) {
	defer recoverInto(&err)
	if len(parts) == 0 {
		return nil, fmt.Errorf("no GGUF file")
	}
	gf = &parser.GGUFFile{}
	for i, p := range parts {
		if err := decodePart(gf, p, block, len(parts) == 1); err != nil {
			if len(parts) > 1 {
				err = fmt.Errorf("split %d of %d: %w", i+1, len(parts), err)
			}
			return nil, err
		}
	}
	if err := checkTensorData(gf, len(parts)); err != nil {
		return nil, err
	}
	gf.ModelParameters = parser.GGUFParametersScalar(gf.TensorInfos.Elements())
	if gf.ModelParameters != 0 {
		gf.ModelBitsPerWeight = parser.GGUFBitsPerWeightScalar(float64(gf.ModelSize) * 8 / float64(gf.ModelParameters))
	}
	return gf, nil
}

func decodePart(gf *parser.GGUFFile, p Part, block int, single bool) error {
	b := &blockReader{r: p.R, size: p.Size, block: block, bo: binary.LittleEndian}
	defer b.release()
	tensors, kvs, err := b.preamble(gf)
	if err != nil {
		return err
	}
	if err := b.metadata(gf, kvs); err != nil {
		return err
	}
	if err := b.tensorInfos(gf, tensors); err != nil {
		return err
	}
	b.layout(gf, single)
	return nil
}

// preamble reads magic, version and the two counts.
func (b *blockReader) preamble(gf *parser.GGUFFile) (tensors, kvs uint64, err error) {
	magic, err := b.u32()
	if err != nil {
		return 0, 0, fmt.Errorf("read magic: %w", err)
	}
	switch parser.GGUFMagic(magic) {
	case parser.GGUFMagicGGUFLe:
	case parser.GGUFMagicGGUFBe:
		b.bo = binary.BigEndian
	default:
		return 0, 0, fmt.Errorf("not a GGUF file (magic %#08x)", magic)
	}
	gf.Header.Magic = parser.GGUFMagic(magic)
	v, err := b.u32()
	if err != nil || v < 1 || v > 3 {
		return 0, 0, fmt.Errorf("unsupported GGUF version %d (want 1 to 3): %v", v, err)
	}
	b.v = parser.GGUFVersion(v)
	gf.Header.Version = b.v
	if tensors, err = b.count(); err == nil {
		kvs, err = b.count()
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read counts: %w", err)
	}
	if tensors > maxTensors || kvs > uint64(b.size-b.pos)/12 || tensors > uint64(b.size-b.pos)/20 {
		return 0, 0, fmt.Errorf("header claims %d tensors and %d metadata entries, more than a %d-byte file holds", tensors, kvs, b.size)
	}
	gf.Header.TensorCount += tensors
	return tensors, kvs, nil
}

func (b *blockReader) metadata(gf *parser.GGUFFile, n uint64) error {
	gf.Header.MetadataKVCount += n
	for i := uint64(0); i < n; i++ {
		kv, err := b.kv()
		if err != nil {
			return fmt.Errorf("read metadata kv %d: %w", i, err)
		}
		if kv.Key == "split.no" {
			gf.Header.MetadataKVCount--
			continue
		}
		gf.Header.MetadataKV = append(gf.Header.MetadataKV, kv)
	}
	return nil
}

func (b *blockReader) kv() (kv parser.GGUFMetadataKV, err error) {
	if kv.Key, err = b.str(); err != nil {
		return kv, err
	}
	t, err := b.u32()
	if err != nil {
		return kv, err
	}
	kv.ValueType = parser.GGUFMetadataValueType(t)
	if kv.ValueType == parser.GGUFMetadataValueTypeArray {
		kv.Value, err = b.array(0, kv.Key)
	} else {
		kv.Value, err = b.value(kv.ValueType, 0)
	}
	if err != nil {
		err = fmt.Errorf("%.200s: %w", kv.Key, err)
	}
	return kv, err
}

func (b *blockReader) tensorInfos(gf *parser.GGUFFile, n uint64) error {
	if gf.TensorInfos == nil {
		gf.TensorInfos = make(parser.GGUFTensorInfos, 0, min(n, 1<<12))
	}
	for i := uint64(0); i < n; i++ {
		ti, err := b.tensorInfo()
		if err != nil {
			return fmt.Errorf("read tensor info %d: %w", i, err)
		}
		gf.TensorInfos = append(gf.TensorInfos, ti)
	}
	return nil
}

func (b *blockReader) tensorInfo() (ti parser.GGUFTensorInfo, err error) {
	ti.StartOffset = b.pos
	if ti.Name, err = b.str(); err != nil {
		return ti, err
	}
	if ti.NDimensions, err = b.u32(); err != nil {
		return ti, err
	}
	if ti.NDimensions == 0 || ti.NDimensions > parser.GGMLMaxDims {
		return ti, fmt.Errorf("tensor %.200q has %d dimensions (want 1 to %d)", ti.Name, ti.NDimensions, parser.GGMLMaxDims)
	}
	ti.Dimensions = make([]uint64, ti.NDimensions)
	for i := range ti.Dimensions {
		if ti.Dimensions[i], err = b.count(); err != nil {
			return ti, err
		}
	}
	t, err := b.u32()
	if err != nil {
		return ti, err
	}
	ti.Type = parser.GGMLType(t)
	if _, ok := ti.Type.Trait(); !ok {
		return ti, fmt.Errorf("tensor %.200q has unknown type %d", ti.Name, t)
	}
	ti.Offset, err = b.u64()
	return ti, err
}

// layout records the padding, data offset and sizes of the part just read.
func (b *blockReader) layout(gf *parser.GGUFFile, single bool) {
	align := int64(32)
	if v, ok := gf.Header.MetadataKV.Get("general.alignment"); ok {
		if a, ok := v.Value.(uint32); ok && a > 0 {
			align = int64(a)
		}
	}
	padding := (align - b.pos%align) % align
	start := b.pos + padding
	if single {
		gf.Padding, gf.TensorDataStartOffset = padding, start
	}
	gf.SplitPaddings = append(gf.SplitPaddings, padding)
	gf.SplitTensorDataStartOffsets = append(gf.SplitTensorDataStartOffsets, start)
	gf.Size += parser.GGUFBytesScalar(b.size)
	gf.SplitSizes = append(gf.SplitSizes, parser.GGUFBytesScalar(b.size))
	gf.ModelSize += parser.GGUFBytesScalar(b.size - start)
	gf.SplitModelSizes = append(gf.SplitModelSizes, parser.GGUFBytesScalar(b.size-start))
}

// checkTensorData refuses a single file whose tensors need more bytes than
// follow its header, as gguf-parser-go does.
func checkTensorData(gf *parser.GGUFFile, parts int) error {
	if parts != 1 || gf.TensorDataStartOffset < 0 || uint64(gf.TensorDataStartOffset) > uint64(gf.Size) {
		return nil
	}
	held := uint64(gf.Size) - uint64(gf.TensorDataStartOffset)
	if want := totalBytes(gf.TensorInfos); want > held {
		return fmt.Errorf("tensor data needs %d bytes but only %d follow the header (is the file truncated?)", want, held)
	}
	return nil
}

// recoverInto turns a panic inside gguf-parser-go (it panics on overflowing
// tensor sizes by design) into an error.
func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("malformed GGUF: %v", r)
	}
}

// satBytes caps tensor sizes: gguf-parser-go's sums wrap around 2^64.
const satBytes = 1 << 62

// totalBytes sums the tensors' sizes, saturating at 2^62.
func totalBytes(tis parser.GGUFTensorInfos) uint64 {
	var sum uint64
	for i := range tis {
		sum = min(sum+min(tis[i].Bytes(), satBytes), satBytes)
	}
	return sum
}
