package logcheck

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// TestLogConflicts checks what a llama-server log of Gemma 3 4B on an H200
// contradicts: nothing when checked against that model and GPU, the model
// when checked against another, the GPU when it is not the size of the
// device the log names (issue 27 §8: an H200's log checked on an L4, which
// holds its charges, was "The log names no GPU"), and the engine when
// another is selected.
func TestLogConflicts(t *testing.T) {
	const grid = "../../../planner/testdata/engines/llamacpp-h200/"
	var data []byte
	for _, f := range []string{"logs/swa/load.log", "logs/swa/32768_4_1_f16_f16_0_512_0.log"} {
		b, err := os.ReadFile(grid + f)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	l, err := enginelog.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	mdata, err := os.ReadFile(grid + "models/swa-gemma3-4b.json")
	if err != nil {
		t.Fatal(err)
	}
	gemma, err := planner.ParseModel(mdata)
	if err != nil {
		t.Fatal(err)
	}
	h200, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	other, err := catalog.Lookup("llama-3.1-8b-instruct-bf16")
	if err != nil {
		t.Fatal(err)
	}
	l4, err := calibrations.Lookup("est-l4-linux")
	if err != nil {
		t.Fatal(err)
	}
	small := h200
	small.DeviceTotal = 2 * planner.GiB
	// A model of Gemma 3 4B's weights whose layers hold twice the KV heads:
	// the weights agree, the exact KV buffer does not.
	twin := gemma
	twin.ID, twin.Name = "gemma-twin", "Gemma twin"
	twin.Layers = slices.Clone(gemma.Layers)
	for i := range twin.Layers {
		twin.Layers[i].Layer.KVHeads *= 2
	}
	for _, c := range []struct {
		name   string
		m      planner.Model
		cal    planner.Calibration
		engine planner.EngineName
		want   []string
	}{
		{"the log's setup", gemma, h200, planner.EngineLlamaCpp, nil},
		{"vramplan's own engine", gemma, h200, "", nil},
		{"another model", other, h200, planner.EngineLlamaCpp, []string{"The log's model weights are "}},
		{"another model of the same weights", twin, h200, planner.EngineLlamaCpp, []string{"The log's KV cache is "}},
		{"a smaller GPU", gemma, small, planner.EngineLlamaCpp, []string{"The log ran on the NVIDIA H200, with 143,155 MiB (139.8 GiB), and "}},
		{"another GPU that holds the log's charges", gemma, l4, planner.EngineLlamaCpp,
			[]string{"The log ran on the NVIDIA H200, with 143,155 MiB (139.8 GiB), and the NVIDIA L4 selected has 22,559 MiB (22 GiB): the log is of another GPU."}},
		{"another engine", gemma, h200, planner.EngineVLLM, []string{"The log is llama.cpp's, and the engine selected is vllm"}},
	} {
		in, err := l.Input(c.m, c.cal)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := planner.Report(in)
		got := Conflicts(&l, enginelog.Compare(&l, &p), &c.m, &c.cal, c.engine)
		if len(got) != len(c.want) {
			t.Errorf("%s: LogConflicts = %q, want %d", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: LogConflicts[%d] = %q, want it to start %q", c.name, i, got[i], w)
			}
		}
	}
}
