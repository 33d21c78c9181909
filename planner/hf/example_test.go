package hf_test

import (
	"fmt"

	"github.com/vramplan/vramplan/planner/hf"
)

func ExampleParseConfig() {
	cfg := []byte(`{"model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072,
		"num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
		"head_dim": 128, "vocab_size": 151936, "tie_word_embeddings": true, "torch_dtype": "bfloat16"}`)
	m, err := hf.ParseConfig(cfg, hf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	l := m.Layers[0]
	fmt.Println(m.Params(), l.Count, l.Kind, l.KVHeads, l.KeyDim)
	q, _ := hf.ParseConfig(cfg, hf.Options{WeightsDtype: "q8_0"})
	fmt.Println(int64(m.Weights.Bytes), int64(q.Weights.Bytes), q.Weights.Dtype)
	// Output:
	// 596049920 28 full 8 128
	// 1192099840 633495552 q8_0
}
