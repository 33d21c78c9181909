package planner_test

import (
	"fmt"

	"github.com/vramplan/vramplan/planner"
)

func exampleInput() planner.Input {
	return planner.Input{
		Model: planner.Model{
			ID: "qwen3-4b-like", HiddenSize: 2560, VocabSize: 151936, IntermediateSize: 9728, QueryHeads: 32,
			Layers:  []planner.LayerGroup{{Count: 36, Layer: planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}}},
			Weights: planner.Weights{Bytes: 4076 * planner.MiB, Source: planner.SourceExact},
		},
		Limits: planner.Limits{MaxBatch: 8, MaxSeqLen: 4096, KVDtype: planner.KVDtypeFP8},
		Calibration: planner.Calibration{ID: "example", DeviceTotal: 32607 * planner.MiB,
			Context: 1680 * planner.MiB, LibraryReserve: 3900 * planner.MiB},
	}
}

func ExamplePlanMemory() {
	p, err := planner.PlanMemory(exampleInput())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Fits, p.KV.Blocks, p.KV.Bytes)
	// Output: true 2048 2304 MiB
}

func ExampleReport() {
	in := exampleInput()
	in.Limits.MaxSeqLen = 65536
	p, err := planner.Report(in)
	fmt.Println(err)
	for _, l := range p.Levers {
		fmt.Println(l.Knob, l.From, "->", l.To, l.Fits)
	}
	// Output:
	// cannot fit this configuration in the 32,607 MiB budget: over by 14,443 MiB
	// kv_dtype fp8 -> nvfp4 true
	// max_seq_len 65536 -> 32768 true
	// max_batch 8 -> 4 true
}

func ExampleFrontier() {
	pts, _ := planner.Frontier(exampleInput(), 4)
	for _, p := range pts {
		fmt.Println(p.Batch, p.MaxSeqLen)
	}
	// Output:
	// 1 318976
	// 2 159472
	// 3 106304
	// 4 79728
}
