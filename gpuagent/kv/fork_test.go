package kv_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/mem"
)

func TestFork(t *testing.T) {
	tests := []struct {
		name       string
		blocks     int  // global blocks in the parent
		swa        int  // SWA blocks in the parent
		hole       bool // the parent's first SWA slot is evicted
		copyLast   bool
		wantShared int
		wantCopies int
	}{
		{"full blocks are shared", 3, 0, false, false, 3, 0},
		{"a partial last block is copied", 3, 0, false, true, 2, 1},
		{"SWA blocks are always copied", 2, 2, false, false, 2, 2},
		{"SWA holes stay holes", 2, 2, true, true, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, 16, 8, 0)
			p := r.m.NewSequence()
			for range tt.blocks {
				p.Append(0)
			}
			for range tt.swa {
				p.AppendSWA()
			}
			if tt.hole {
				p.EvictSWA(0, 1)
			}
			p.Seal(0, 5)
			c, copies, err := p.Fork(tt.copyLast)
			if err != nil {
				t.Fatal(err)
			}
			pt, ct := p.BlockTable(nil), c.BlockTable(nil)
			shared := 0
			for i := range pt {
				if pt[i] == ct[i] {
					shared++
				}
			}
			if shared != tt.wantShared || len(copies) != tt.wantCopies || c.SWALen() != p.SWALen() {
				t.Errorf("Fork(%v) shares %d, copies %v, SWA %d; want %d shared, %d copies, SWA %d",
					tt.copyLast, shared, copies, c.SWALen(), tt.wantShared, tt.wantCopies, p.SWALen())
			}
			if tt.hole && c.SWATable(nil)[0] != -1 {
				t.Errorf("child SWA table %v, want a hole first", c.SWATable(nil))
			}
			p.Close()
			c.Close()
			r.close(t)
		})
	}
}

func TestForkFailsWhole(t *testing.T) {
	r := newRig(t, 2, 8, 0)
	p := r.m.NewSequence()
	p.Append(0)
	p.Append(0)
	live := r.global.Live()
	if _, _, err := p.Fork(true); !errors.Is(err, mem.ErrPoolFull) {
		t.Fatalf("Fork with the pool full = %v, want ErrPoolFull", err)
	}
	if r.global.Live() != live || r.m.Stats().Sequences != 1 || !slices.Equal(p.BlockTable(nil), []int32{1, 2}) {
		t.Errorf("a failed fork changed something: live %d -> %d, %+v", live, r.global.Live(), r.m.Stats())
	}
	p.Close()
	r.close(t)
}
