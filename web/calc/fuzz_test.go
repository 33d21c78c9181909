package calc

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// FuzzParseQuery feeds arbitrary URL queries to the parser the server and
// the page share: no panic, and a state that parses is stable through
// Encode and ParseQuery again, and plans, and tables, or fails cleanly.
func FuzzParseQuery(f *testing.F) {
	for _, q := range []string{"", "?model=qwen3-8b-q8_0&gpu=h200&batch=8&len=4096&kv=fp8",
		"batch=-1", "len=99999999999999999999", "budget=30GiB&vision=1&graphs=true", "%zz=1", "model=%E2%82%AC&&&=",
		"spec=64&block=1&prefill=0&cache=nvfp4&budget=16TiB",
		"engine=llama.cpp&pp=2&ts=3,1", "engine=llama.cpp&pp=3&ts=1/2/%203", "engine=llama.cpp&pp=2&ts=1e-300,1e6", "ts=,&pp=2",
		"engine=llama.cpp&ngl=3", "engine=llama.cpp&pp=2&ts=3,1&ngl=4", "engine=llama.cpp&pp=2&ngl=2", "ngl=-1",
		"engine=llama.cpp&pp=2&ts=3,1&sm=tensor", "engine=llama.cpp&tp=2&pp=2&sm=layer", "sm=row",
		"engine=vllm&version=0.6.3", "engine=sglang&version=%200.4.4%20", "engine=vllm&version=0.3", "version=b99999999999", "engine=vllm&version=%00",
		"gsort=memory&gmin=40&glabel=estimated", "gsort=gpus", "gsort=GPU&glabel=Measured", "gmin=-1", "gsort=launch", "gmin=99999999999999999999"} {
		f.Add(q)
	}
	m := planner.Model{ID: "m", HiddenSize: 2048, VocabSize: 32000, QueryHeads: 16,
		Layers: []planner.LayerGroup{{Count: 4, Layer: planner.Layer{Kind: planner.LayerFull, KVHeads: 4, KeyDim: 128, ValueDim: 128}}}}
	c := planner.Calibration{ID: "c", DeviceTotal: 80 * planner.GiB, Context: 500 * planner.MiB}
	f.Fuzz(func(t *testing.T, query string) {
		s, err := ParseQuery(query)
		if err != nil {
			return
		}
		again, err := ParseQuery(s.Encode())
		if err != nil || again.Encode() != s.Encode() {
			t.Fatalf("ParseQuery(%q).Encode() = %q does not parse back to itself (%v)", query, s.Encode(), err)
		}
		Calculate(s, m, c)
		GPUsTable(s, &m, []planner.Calibration{c})
	})
}
