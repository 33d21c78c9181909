package kv_test

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

func Example() {
	b := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB})
	global, _ := mem.NewBlockPool(b, 64, 64*backend.KiB, backend.TagKVPool)
	defer global.Close()
	m := kv.New(kv.Config{Global: global})
	defer m.Close()

	serve := func(h kv.Hash) bool {
		s := m.NewSequence()
		defer s.Close() // completion, cancellation and errors alike
		hit, err := s.Append(h)
		if err == nil && !hit {
			s.Seal(0, h) // written: may be cached when the sequence closes
		}
		return hit
	}
	fmt.Println(serve(42), serve(42), m.Stats().CachedBlocks)
	// Output: false true 1
}
