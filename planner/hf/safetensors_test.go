package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// stTensor is a tensor the test writer lays out in a safetensors file.
type stTensor struct {
	name  string
	dtype string
	shape []int64
	bytes int64
}

// writeSafetensors writes a safetensors file holding ts: the header, then a
// sparse data section of the right size (no weight bytes are written).
func writeSafetensors(t testing.TB, path string, ts []stTensor) {
	t.Helper()
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var off int64
	for _, x := range ts {
		header[x.name] = map[string]any{"dtype": x.dtype, "shape": x.shape, "data_offsets": []int64{off, off + x.bytes}}
		off += x.bytes
	}
	h, _ := json.Marshal(header)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	binary.Write(f, binary.LittleEndian, uint64(len(h)))
	f.Write(h)
	if err := f.Truncate(8 + int64(len(h)) + off); err != nil {
		t.Fatal(err)
	}
}

// checkpointTensors lists a dense config's tensors as its bf16 checkpoint names them.
func checkpointTensors(t testing.TB, cfg []byte) []stTensor {
	s, err := arch.Parse(cfg)
	if err != nil {
		t.Fatal(err)
	}
	all := s.Tensors
	if s.Vision != nil {
		all = append(all, s.Vision.Tensors...)
	}
	var out []stTensor
	for _, x := range all {
		if x.Experts > 0 {
			out = append(out, expertTensors(x)...)
			continue
		}
		name, shape := x.HFModule()+".weight", []int64{x.N, x.K}
		if x.Bias {
			name = x.HFModule() + ".bias"
		}
		if x.Kind == arch.KindVector {
			shape = []int64{x.N}
		}
		out = append(out, stTensor{name, "BF16", shape, 2 * x.N * x.K})
	}
	return out
}

// expertTensors lists stacked experts one by one, as transformers saves them.
func expertTensors(x arch.Tensor) []stTensor {
	proj := map[string]string{"ffn_gate_exps": "gate_proj", "ffn_up_exps": "up_proj", "ffn_down_exps": "down_proj"}[x.Role]
	out := make([]stTensor, x.Experts)
	for e := range out {
		out[e] = stTensor{fmt.Sprintf("%s.%d.%s.weight", x.HFModule(), e, proj), "BF16", []int64{x.N, x.K}, 2 * x.N * x.K}
	}
	return out
}

// writeCheckpoint writes config.json and the tensors split over two shards with an index.
func writeCheckpoint(t testing.TB, dir string, cfg []byte, ts []stTensor, n int) {
	os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
	wm := map[string]string{}
	per := (len(ts) + n - 1) / n
	for i := range n {
		s := ts[min(i*per, len(ts)):min((i+1)*per, len(ts))]
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, n)
		writeSafetensors(t, filepath.Join(dir, name), s)
		for _, x := range s {
			wm[x.name] = name
		}
	}
	idx, _ := json.Marshal(map[string]any{"metadata": map[string]int{"total_size": 0}, "weight_map": wm})
	os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644)
}

// TestLoadDir checks that the exact bytes of a sharded checkpoint equal the
// sum of its tensors and agree with the config.json formula.
func TestLoadDir(t *testing.T) {
	for _, name := range []string{"Qwen__Qwen3-0.6B", "google__gemma-3-4b-it", "meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-30B-A3B",
		"ibm-granite__granite-4.0-h-micro", "LiquidAI__LFM2-700M", "Qwen__Qwen3.5-9B", "Qwen__Qwen2-VL-2B-Instruct",
		"Qwen__Qwen3-VL-30B-A3B-Instruct", "meta-llama__Llama-3.2-11B-Vision"} {
		cfg := readConfig(t, name)
		dir := t.TempDir()
		ts := checkpointTensors(t, cfg)
		writeCheckpoint(t, dir, cfg, ts, 3)
		m, err := LoadDir(dir, Options{})
		if err != nil {
			t.Fatalf("LoadDir(%s): %v", name, err)
		}
		formula, _ := ParseConfig(cfg, Options{})
		if m.Weights.Source != planner.SourceExact || m.Weights.Bytes != formula.Weights.Bytes {
			t.Errorf("LoadDir(%s).Weights = %d (%s), want %d exact", name, m.Weights.Bytes, m.Weights.Source, formula.Weights.Bytes)
		}
		if formula.Vision != nil && m.Vision.Bytes != formula.Vision.Bytes {
			t.Errorf("LoadDir(%s).Vision.Bytes = %d, want %d", name, m.Vision.Bytes, formula.Vision.Bytes)
		}
		// The tensors' names put each byte in the class the template gives it.
		for i, c := range formula.Weights.Classes {
			if len(m.Weights.Classes) != len(formula.Weights.Classes) || m.Weights.Classes[i].Class != c.Class || m.Weights.Classes[i].Bytes != c.Bytes {
				t.Errorf("LoadDir(%s).Weights.Classes = %+v, want %+v", name, m.Weights.Classes, formula.Weights.Classes)
				break
			}
		}
	}
}

func TestReadSafetensorsBad(t *testing.T) {
	header := func(h string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(b, h...)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"huge header", binary.LittleEndian.AppendUint64(nil, 1<<40), "does not fit"},
		{"lying length", binary.LittleEndian.AppendUint64(nil, 100), "does not fit"},
		{"not json", header("{nope"), "safetensors header"},
		{"outside", header(`{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`), "outside"},
		{"negative", header(`{"a":{"dtype":"F16","shape":[-2],"data_offsets":[0,0]}}`), "shape"},
		{"mismatch", append(header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`), 0, 0, 0, 0), "data_offsets hold 4"},
		{"overflow", header(`{"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}}`), "shape"},
		{"nan", header(`{"a":{"dtype":"F32","shape":[NaN],"data_offsets":[0,0]}}`), "safetensors header"},
	}
	for _, tt := range tests {
		_, err := ReadSafetensors(bytes.NewReader(tt.data), int64(len(tt.data)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadSafetensors(%s) = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestReadIndexBad(t *testing.T) {
	for _, idx := range []string{`{"weight_map":{"a":"../../etc/passwd"}}`, `{"weight_map":{}}`, `{"weight_map":{"a":".."}}`, `[`} {
		if _, err := ReadIndex([]byte(idx)); err == nil {
			t.Errorf("ReadIndex(%s) = nil error, want an error", idx)
		}
	}
}

// TestReadSafetensorsOwnsItsTensors reads one header, then another into the
// same reused header buffer, and checks that the first file's tensors did
// not change: a tensor may not keep a slice of the header it came from.
func TestReadSafetensorsOwnsItsTensors(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	writeSafetensors(t, a, []stTensor{{"model.layers.0.mlp.up_proj.weight", "BF16", []int64{8, 4}, 64},
		{"model.layers.0.mlp.down_proj.weight", "F8_E4M3", []int64{4, 8}, 32}})
	writeSafetensors(t, b, []stTensor{{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "F32", []int64{2, 2}, 16}})
	read := func(path string) []Tensor {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		ts, err := ReadSafetensors(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	first := read(a)
	want := fmt.Sprint(first)
	for range 3 {
		read(b)
	}
	if got := fmt.Sprint(first); got != want {
		t.Errorf("after reading another file, the first file's tensors changed:\n got %s\nwant %s", got, want)
	}
	if first[0].Dtype != "F8_E4M3" || first[1].Name != "model.layers.0.mlp.up_proj.weight" {
		t.Errorf("tensors %v", first)
	}
}
