package hf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// FuzzParseConfig feeds arbitrary bytes to ParseConfig: it must return a
// model or an error, never panic, and a model it returns must have layers
// and bounded weights. The seed corpus is testdata/fuzz/FuzzParseConfig.
func FuzzParseConfig(f *testing.F) {
	for _, c := range []string{"google__gemma-3-4b-it", "deepseek-ai__DeepSeek-V3", "ibm-granite__granite-4.0-h-micro",
		"LiquidAI__LFM2-700M", "Qwen__Qwen3.5-9B", "Qwen__Qwen2-VL-2B-Instruct", "meta-llama__Llama-3.2-11B-Vision"} {
		f.Add(readConfig(f, c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseConfig(data, Options{})
		if err != nil {
			return
		}
		cal, _ := calibrations.Lookup("rtx5090-wsl2-cuda13.3")
		_, err = planner.Report(planner.Input{Model: m, Calibration: cal, Limits: planner.Limits{MaxBatch: 1, MaxSeqLen: 16}})
		var ie *planner.InputError
		if errors.As(err, &ie) {
			t.Errorf("ParseConfig(%q) = a model the planner refuses: %v", data, err)
		}
	})
}

// FuzzReadSafetensors feeds arbitrary files to ReadSafetensors: it must
// return tensors whose bytes fit the file, or an error, and never panic.
// The seed corpus is testdata/fuzz/FuzzReadSafetensors.
func FuzzReadSafetensors(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := ReadSafetensors(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var sum int64
		for _, x := range ts {
			if x.Bytes < 0 || x.Bytes > int64(len(data)) {
				t.Errorf("ReadSafetensors(%q) = tensor %q of %d bytes in a %d-byte file", data, x.Name, x.Bytes, len(data))
			}
			sum += x.Bytes
		}
		// Tensors are disjoint byte ranges of the data after the header
		// (issue 13, finding 8: overlapping data_offsets were accepted),
		// so together they never outweigh it.
		if room := int64(len(data)) - 8 - int64(binary.LittleEndian.Uint64(data)); sum > room {
			t.Errorf("ReadSafetensors = %d tensors of %d bytes in all, over the %d bytes of data after the header", len(ts), sum, room)
		}
	})
}
