package mem_test

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

func ExampleBlockRef() {
	b := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB})
	pool, err := mem.NewBlockPool(b, 16, 64*backend.KiB, backend.TagKVPool)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	r, _ := pool.Acquire()
	defer r.Release()  // released exactly once
	alias := r.Share() // the only way to make a second reference
	fmt.Println(pool.RefCount(r.ID()), alias.Span().Len())
	alias.Release()
	// Output: 2 64.00 KiB
}

func ExampleScratchStack() {
	b := gpuagenttest.New(gpuagenttest.Config{Capacity: 64 * backend.MiB})
	s, _ := mem.NewScratchStack(b, backend.MiB)
	defer s.Close()

	forward := func() error {
		m := s.Mark()
		defer m.Rewind()
		_, err := s.Take(300*backend.KiB, 256)
		return err
	}
	forward()
	fmt.Println(s.Used(), s.HighWater())
	// Output: 0 B 300.00 KiB
}
