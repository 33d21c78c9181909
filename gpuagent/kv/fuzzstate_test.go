package kv_test

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/kv"
)

type fuzzState struct {
	r     *rig
	seqs  []*kv.Sequence
	saved *kv.Saved
}

func (z *fuzzState) step(op byte) {
	if len(z.seqs) == 0 || op%12 == 0 {
		z.seqs = append(z.seqs, z.r.m.NewSequence())
		return
	}
	s := z.seqs[int(op/12)%len(z.seqs)]
	switch op % 12 {
	case 1:
		s.Append(kv.Hash(op/12%4 + 1))
	case 2:
		s.AppendSWA()
	case 3:
		z.seal(s, op)
	case 4:
		s.EvictMiddle(0, min(s.Len(), int(op/12)%3))
	case 5:
		s.EvictSWA(0, min(s.SWALen(), 1))
	case 6:
		z.r.m.Pin("p", kv.Hash(op/12%4+1))
	case 7:
		z.r.m.Unpin("p")
	case 8:
		z.r.m.Reclaim(1)
	case 9:
		z.close(int(op/12) % len(z.seqs))
	default:
		z.save()
	}
}

func (z *fuzzState) seal(s *kv.Sequence, op byte) {
	t := s.BlockTable(nil)
	if len(t) > 0 && t[len(t)-1] != -1 {
		s.Seal(len(t)-1, kv.Hash(op/12%4+1))
	}
}

func (z *fuzzState) close(i int) {
	z.seqs[i].Close()
	z.seqs = append(z.seqs[:i], z.seqs[i+1:]...)
}

func (z *fuzzState) save() {
	if z.saved != nil {
		z.saved.Close()
		z.saved = nil
		return
	}
	z.saved = z.r.m.SavePrefix()
}

// check compares the pools with what the holders account for.
func (z *fuzzState) check() string {
	held, swa := 0, 0
	for _, s := range z.seqs {
		held += filled(s.BlockTable(nil))
		swa += filled(s.SWATable(nil))
	}
	st := z.r.m.Stats()
	held += st.CachedBlocks
	if z.saved != nil {
		held += len(z.saved.Snapshot.Hashes)
	}
	g, w := z.r.global, z.r.swa
	if g.References() != held || w.References() != swa || w.Live() != swa || g.Free()+g.Live() != g.Blocks() {
		return fmt.Sprintf("global refs %d, holders %d; swa refs %d live %d, slots %d", g.References(), held, w.References(), w.Live(), swa)
	}
	return ""
}

func filled(t []int32) int {
	n := 0
	for _, id := range t {
		if id != -1 {
			n++
		}
	}
	return n
}

func (z *fuzzState) finish() {
	for len(z.seqs) > 0 {
		z.close(0)
	}
	if z.saved != nil {
		z.saved.Close()
	}
	z.r.m.Unpin("p")
}
