package planner_test

import (
	"fmt"

	"github.com/vramplan/vramplan/planner"
)

// The example's model at two tensor-parallel ranks and two pipeline
// stages: four GPUs, two distinct ranks (one per stage).
func ExampleParallel() {
	in := exampleInput()
	in.Parallel = planner.Parallel{Tensor: 2, Pipeline: 2}
	p, err := planner.PlanMemory(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Layout.GPUs, "GPUs, binding rank", p.Layout.Binding)
	for _, rp := range p.Layout.Ranks {
		r := rp.Plan.Input.Rank
		fmt.Println("ranks", rp.Ranks, "stage", r.Stage, "layers", r.Layers, "KV/token", rp.Plan.KV.BytesPerToken)
	}
	// Output:
	// 4 GPUs, binding rank 0
	// ranks [0 1] stage 0 layers [0 18] KV/token 18 KiB
	// ranks [2 3] stage 1 layers [18 36] KV/token 18 KiB
}

// How many of the example's GPUs eight sequences of a million tokens need:
// 23 GPUs would hold the bytes, but a 23-stage split of 36 layers gives some
// stages two layers' KV, which does not fit.
func ExampleMinGPUs() {
	in := exampleInput()
	in.Limits.MaxSeqLen = 1 << 20
	c, err := planner.MinGPUs(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.GPUs, "GPUs:", c.Parallel)
	// Output: 24 GPUs: tensor_parallel 2 × pipeline_parallel 12
}
