package catalog_test

import (
	"fmt"

	"github.com/vramplan/vramplan/planner/catalog"
)

func ExampleLookup() {
	m, err := catalog.Lookup("llama-3.1-8b-instruct-bf16")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Params(), int64(m.Weights.Bytes), m.Layers[0].Count, m.Layers[0].Kind)
	_, err = catalog.Lookup("qwen3-8b")
	fmt.Println(err)
	// Output:
	// 8030261248 16060522496 32 full
	// model "qwen3-8b" is ambiguous: it could be qwen3-8b-bf16, qwen3-8b-q4_k_m, qwen3-8b-q6_k, qwen3-8b-q8_0
}
