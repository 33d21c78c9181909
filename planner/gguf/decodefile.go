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
	var kept int64 // metadata bytes kept, over every part
	for i, p := range parts {
		if err := decodePart(gf, p, block, len(parts) == 1, &kept); err != nil {
			if len(parts) > 1 {
				err = fmt.Errorf("split %d of %d: %w", i+1, len(parts), err)
			}
			return nil, err
		}
	}
	if err := uniqueNames(gf.TensorInfos); err != nil {
		return nil, err
	}
	gf.ModelParameters = parser.GGUFParametersScalar(gf.TensorInfos.Elements())
	if gf.ModelParameters != 0 {
		gf.ModelBitsPerWeight = parser.GGUFBitsPerWeightScalar(float64(gf.ModelSize) * 8 / float64(gf.ModelParameters))
	}
	return gf, nil
}

func decodePart(gf *parser.GGUFFile, p Part, block int, single bool, kept *int64) error {
	b := &blockReader{r: p.R, size: p.Size, block: block, bo: binary.LittleEndian, kept: kept}
	defer b.release()
	tensors, kvs, err := b.preamble(gf)
	if err != nil {
		return err
	}
	if err := b.metadata(gf, kvs); err != nil {
		return err
	}
	first := len(gf.TensorInfos)
	if err := b.tensorInfos(gf, tensors); err != nil {
		return err
	}
	align, err := alignment(gf)
	if err != nil {
		return err
	}
	start := b.layout(gf, align, single)
	return checkLayout(gf.TensorInfos[first:], start, b.size, align)
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
	if err != nil {
		return 0, 0, fmt.Errorf("read version: %w", err)
	}
	if v < 1 || v > 3 {
		return 0, 0, fmt.Errorf("unsupported GGUF version %d: llama.cpp reads versions 1 to 3", v)
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
	if gf.Header.TensorCount+tensors > maxTensors {
		return 0, 0, fmt.Errorf("%d tensors with the files before it, more than %d (a model has about a thousand)", gf.Header.TensorCount+tensors, maxTensors)
	}
	if kvs > maxMetadata {
		return 0, 0, fmt.Errorf("header claims %d metadata entries, more than %d (a model has tens)", kvs, maxMetadata)
	}
	gf.Header.TensorCount += tensors
	return tensors, kvs, nil
}

// keptBytes is what a decoded metadata value keeps: a string's bytes, a
// per-layer array's numbers; skipped arrays and scalars keep nothing to
// speak of.
func keptBytes(v any) int64 {
	switch v := v.(type) {
	case string:
		return int64(len(v))
	case layerArray:
		return 8 * int64(len(v.Values))
	}
	return 0
}

// metadata reads n metadata entries, refusing a key repeated within the
// file, as llama.cpp does (ggml/src/gguf.cpp, gguf_init_from_file_impl:
// "duplicate key"): which of two values a reader takes is not defined.
func (b *blockReader) metadata(gf *parser.GGUFFile, n uint64) error {
	gf.Header.MetadataKVCount += n
	seen := make(map[string]struct{}, min(n, 1<<10))
	for i := uint64(0); i < n; i++ {
		kv, err := b.kv()
		if err != nil {
			return fmt.Errorf("read metadata kv %d: %w", i, err)
		}
		if *b.kept += int64(len(kv.Key)) + keptBytes(kv.Value); *b.kept > maxMetadataBytes {
			return fmt.Errorf("metadata of more than %d bytes, at key %.200q (a model's is a few hundred KiB)", maxMetadataBytes, kv.Key)
		}
		if _, dup := seen[kv.Key]; dup {
			return fmt.Errorf("metadata key %.200q appears twice", kv.Key)
		}
		seen[kv.Key] = struct{}{}
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

// alignment is the file's general.alignment, 32 when absent; like
// llama.cpp it must be a power of two.
func alignment(gf *parser.GGUFFile) (int64, error) {
	v, ok := gf.Header.MetadataKV.Get("general.alignment")
	if !ok {
		return 32, nil
	}
	a, ok := v.Value.(uint32)
	if !ok || a == 0 || a&(a-1) != 0 || a > 1<<20 {
		return 0, fmt.Errorf("general.alignment %v is not a power of two up to 1 MiB", v.Value)
	}
	return int64(a), nil
}

// layout records the padding, data offset and sizes of the part just read,
// and returns where its tensor data starts.
func (b *blockReader) layout(gf *parser.GGUFFile, align int64, single bool) int64 {
	padding := (align - b.pos%align) % align
	start := b.pos + padding
	if single {
		gf.Padding, gf.TensorDataStartOffset = padding, start
	}
	gf.SplitPaddings = append(gf.SplitPaddings, padding)
	gf.SplitTensorDataStartOffsets = append(gf.SplitTensorDataStartOffsets, start)
	gf.Size += parser.GGUFBytesScalar(b.size)
	gf.SplitSizes = append(gf.SplitSizes, parser.GGUFBytesScalar(b.size))
	data := max(b.size-start, 0)
	gf.ModelSize += parser.GGUFBytesScalar(data)
	gf.SplitModelSizes = append(gf.SplitModelSizes, parser.GGUFBytesScalar(data))
	return start
}

// checkLayout refuses tensor data a file does not hold, as llama.cpp does:
// each tensor's data must start where the one before it ends, padded to the
// alignment (ggml/src/gguf.cpp, gguf_init_from_file_impl: "tensor '%s' has
// offset %d, expected %d"), and lie inside the file (src/llama-model-loader.cpp,
// llama_tensor_weight: "tensor data is not within the file bounds"). So a
// header with no data behind it, an offset of 2^40, or two tensors sharing
// bytes is an error, not an exact weight count.
func checkLayout(tis parser.GGUFTensorInfos, start, size, align int64) error {
	var want uint64
	for i := range tis {
		ti := &tis[i]
		if ti.Offset != want {
			return fmt.Errorf("tensor %.200q has data offset %d, want %d (where the tensor before it ends)", ti.Name, ti.Offset, want)
		}
		n := min(ti.Bytes(), satBytes)
		if end := uint64(start) + ti.Offset + n; end > uint64(size) {
			return fmt.Errorf("tensor %.200q needs bytes %d to %d but the file ends at %d (is it truncated?)",
				ti.Name, uint64(start)+ti.Offset, end, size)
		}
		want = min(want+(n+uint64(align)-1)/uint64(align)*uint64(align), satBytes)
	}
	return nil
}

// uniqueNames refuses a tensor named twice, in one file or across the
// splits of a model, as llama.cpp does (gguf.cpp: "duplicate tensor name";
// llama-model-loader.cpp: "tensor '%s' is duplicated"): it would be counted
// twice.
func uniqueNames(tis parser.GGUFTensorInfos) error {
	seen := make(map[string]struct{}, len(tis))
	for i := range tis {
		if _, dup := seen[tis[i].Name]; dup {
			return fmt.Errorf("tensor %.200q appears twice", tis[i].Name)
		}
		seen[tis[i].Name] = struct{}{}
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
