package gguf

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/gguf/gguftest"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// TestPerLayerArrays reads metadata llama.cpp writes as per-layer arrays:
// nemotron_h's head_count_kv and feed_forward_length (0 for the layers
// without attention or MLP), and a bool sliding_window_pattern.
func TestPerLayerArrays(t *testing.T) {
	state := &planner.Recurrent{ConvChannels: 4096 + 2*8*128, ConvKernel: 4, Heads: 64, HeadDim: 64, StateDim: 128, StateBytes: 4}
	full := planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}
	tests := []struct {
		name string
		kvs  []arch.KV
		want []planner.LayerGroup
	}{
		{"nemotron_h", []arch.KV{
			{Key: "nemotron_h.attention.head_count_kv", Value: []uint32{0, 0, 8, 0}},
			{Key: "nemotron_h.feed_forward_length", Value: []uint32{0, 8192, 0, 0}},
			{Key: "nemotron_h.ssm.conv_kernel", Value: uint32(4)}, {Key: "nemotron_h.ssm.inner_size", Value: uint32(4096)},
			{Key: "nemotron_h.ssm.state_size", Value: uint32(128)}, {Key: "nemotron_h.ssm.time_step_rank", Value: uint32(64)},
			{Key: "nemotron_h.ssm.group_count", Value: uint32(8)},
		}, []planner.LayerGroup{
			{Count: 1, Layer: planner.Layer{Kind: planner.LayerRecurrent, Recurrent: state}},
			{Count: 1, Layer: planner.Layer{Kind: planner.LayerNone}},
			{Count: 1, Layer: full},
			{Count: 1, Layer: planner.Layer{Kind: planner.LayerRecurrent, Recurrent: state}},
		}},
		{"gemma3", []arch.KV{
			{Key: "gemma3.attention.head_count_kv", Value: uint32(8)},
			{Key: "gemma3.attention.sliding_window", Value: uint32(512)},
			{Key: "gemma3.attention.sliding_window_pattern", Value: []bool{true, false, true, true}},
		}, []planner.LayerGroup{
			{Count: 1, Layer: planner.Layer{Kind: planner.LayerSliding, KVHeads: 8, KeyDim: 128, ValueDim: 128, Window: 512}},
			{Count: 1, Layer: full},
			{Count: 2, Layer: planner.Layer{Kind: planner.LayerSliding, KVHeads: 8, KeyDim: 128, ValueDim: 128, Window: 512}},
		}},
	}
	for _, tt := range tests {
		kvs := append([]arch.KV{{Key: "general.architecture", Value: tt.name},
			{Key: tt.name + ".block_count", Value: uint32(4)}, {Key: tt.name + ".embedding_length", Value: uint32(4096)},
			{Key: tt.name + ".attention.head_count", Value: uint32(32)}}, tt.kvs...)
		f := &gguftest.File{KVs: kvs, Tensors: []gguftest.Tensor{{Name: "token_embd.weight", Dims: []uint64{4096, 16}}}}
		r, size := f.Reader()
		m, err := ReadAt([]Part{{r, size}}, Options{})
		if err != nil || !reflect.DeepEqual(m.Layers, tt.want) {
			t.Errorf("ReadAt(%s).Layers = %+v, %v; want %+v", tt.name, m.Layers, err, tt.want)
		}
	}
}

// perLayerArray is a GGUF array value of n uint32 items, each over 255 (so
// none could be boxed without an allocation).
func perLayerArray(n int) []byte {
	p := binary.LittleEndian.AppendUint32(nil, uint32(parser.GGUFMetadataValueTypeUint32))
	p = binary.LittleEndian.AppendUint64(p, uint64(n))
	for i := range n {
		p = binary.LittleEndian.AppendUint32(p, uint32(14336+i))
	}
	return p
}

func decodeArray(data []byte) (any, error) {
	b := &blockReader{r: bytes.NewReader(data), size: int64(len(data)), block: 1 << 20, bo: binary.LittleEndian, v: parser.GGUFVersionV3}
	defer b.release()
	return b.array(0, "llama.feed_forward_length")
}

// TestPerLayerArrayUnboxed holds the rest of issue 13's finding 5: a
// per-layer array is decoded into one slice of numbers, not a boxed value
// per item, so its cost does not grow with allocations per layer; past
// the layer bound it is refused.
func TestPerLayerArrayUnboxed(t *testing.T) {
	data := perLayerArray(maxLayerValues)
	v, err := decodeArray(data)
	la, ok := v.(layerArray)
	if err != nil || !ok || len(la.Values) != maxLayerValues || la.Values[4095] != 14336+4095 || la.Array != nil {
		t.Fatalf("decoding a %d-item per-layer array = %T, %v", maxLayerValues, v, err)
	}
	if la.Size != int64(len(data)-12) || la.Len != maxLayerValues {
		t.Errorf("array size %d, len %d; want %d, %d", la.Size, la.Len, len(data)-12, maxLayerValues)
	}
	allocs := testing.AllocsPerRun(20, func() { decodeArray(data) })
	if allocs > 8 {
		t.Errorf("decoding a %d-item per-layer array: %.0f allocations, want a few (one slice), not one per item", maxLayerValues, allocs)
	}
	if _, err := decodeArray(perLayerArray(maxLayerValues + 1)); err == nil || !strings.Contains(err.Error(), "one per layer") {
		t.Errorf("a per-layer array of %d items = %v, want it refused", maxLayerValues+1, err)
	}
}

// BenchmarkPerLayerArray decodes a 4,096-item per-layer array.
func BenchmarkPerLayerArray(b *testing.B) {
	data := perLayerArray(maxLayerValues)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeArray(data); err != nil {
			b.Fatal(err)
		}
	}
}
