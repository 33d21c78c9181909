package mem_test

// Randomized state-machine tests: random operation sequences replayed
// against the allocators and against a simple model of each, compared after
// every step. The fuzzers drive the same replays; their seed corpus is under
// testdata/fuzz and runs with every `go test`.

import (
	"math/rand/v2"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/mem"
)

// poolModel is what a block pool must look like: a refcount per held id.
type poolModel struct {
	refs  []mem.BlockRef
	count map[mem.BlockID]int
}

func replayPool(t *testing.T, p *mem.BlockPool, ops []byte) {
	m := poolModel{count: map[mem.BlockID]int{}}
	for i, op := range ops {
		m.step(t, p, op)
		if err := m.check(p); err != "" {
			t.Fatalf("after op %d (%d): %s", i, op, err)
		}
	}
	for j := range m.refs {
		m.refs[j].Release()
	}
	if p.Free() != p.Blocks() || p.References() != 0 {
		t.Fatalf("after releasing everything: free %d of %d, %d references", p.Free(), p.Blocks(), p.References())
	}
	p.Close()
}

func (m *poolModel) step(t *testing.T, p *mem.BlockPool, op byte) {
	n := len(m.refs)
	switch {
	case op%4 == 0 || n == 0:
		r, err := p.Acquire()
		if (err == nil) != (p.Blocks() > len(m.count)) {
			t.Fatalf("Acquire with %d blocks held of %d = %v", len(m.count), p.Blocks(), err)
		}
		if err == nil {
			m.add(&r)
		}
	case op%4 == 1 && p.Shareable():
		r := m.refs[int(op)%n].Share()
		m.add(&r)
	case op%4 == 2 && int(op)%n != n-1:
		j := int(op) % n // release a reference from the middle
		m.refs[j], m.refs[n-1] = m.refs[n-1].Move(), m.refs[j].Move()
		fallthrough
	default:
		m.drop(n - 1)
	}
}

// add moves r into the model. Appending a BlockRef by value is a copy go
// vet reports, so the slot is appended empty and the reference moved in.
func (m *poolModel) add(r *mem.BlockRef) {
	m.count[r.ID()]++
	m.refs = append(m.refs, mem.BlockRef{})
	m.refs[len(m.refs)-1] = r.Move()
}

func (m *poolModel) drop(j int) {
	id := m.refs[j].ID()
	m.refs[j].Release()
	m.refs = m.refs[:j]
	if m.count[id]--; m.count[id] == 0 {
		delete(m.count, id)
	}
}

// check is V4: free + live == blocks, and every refcount matches the model.
func (m *poolModel) check(p *mem.BlockPool) string {
	if p.Free()+p.Live() != p.Blocks() || p.Live() != len(m.count) || p.References() != len(m.refs) {
		return "pool counts disagree with the model"
	}
	for id, n := range m.count {
		if p.RefCount(id) != n {
			return "refcount disagrees with the model"
		}
	}
	return ""
}

func TestV4BlockPoolConservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tag := range []backend.Tag{backend.TagKVPool, backend.TagSWAPool} {
		ops := make([]byte, 20000)
		for i := range ops {
			ops[i] = byte(rng.UintN(256))
		}
		replayPool(t, mem.NewBlockIDSpace(37, tag), ops)
	}
}

func FuzzBlockPool(f *testing.F) {
	f.Add(uint8(4), false, []byte{0, 1, 0, 2, 3, 0, 5})
	f.Add(uint8(1), true, []byte{0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, blocks uint8, swa bool, ops []byte) {
		tag := backend.TagKVPool
		if swa {
			tag = backend.TagSWAPool
		}
		replayPool(t, mem.NewBlockIDSpace(int(blocks%64)+1, tag), ops)
	})
}

// bumpModel is what an arena or a scratch stack must hand out: the next
// offset aligned up, or nothing if it does not fit.
type bumpModel struct {
	off, capacity backend.Bytes
	marks         []backend.Bytes
}

func (m *bumpModel) take(n, align backend.Bytes) (backend.Bytes, bool) {
	at := backend.AlignUp(m.off, align)
	if at+n > m.capacity {
		return 0, false
	}
	m.off = at + n
	return at, true
}

func replayStack(t *testing.T, a *mem.Arena, s *mem.ScratchStack, ops []byte) {
	am := bumpModel{capacity: a.Capacity()}
	sm := bumpModel{capacity: s.Capacity()}
	var marks []mem.Mark
	aBase, sBase := baseOf(t, a), stackBase(t, s)
	for i := 0; i+1 < len(ops); i += 2 {
		n, align := backend.Bytes(ops[i+1])*16, backend.Bytes(1)<<(ops[i]>>5)
		switch ops[i] % 5 {
		case 0:
			compareTake(t, "arena", aBase, &am, n, align, a.Take)
		case 1:
			a.Reset()
			am.off = 0
		case 2:
			marks = append(marks, s.Mark())
			sm.marks = append(sm.marks, sm.off)
		case 3:
			marks = rewind(t, marks, &sm, int(ops[i+1]))
		default:
			compareTake(t, "stack", sBase, &sm, n, align, s.Take)
		}
	}
	for len(marks) > 0 {
		marks = rewind(t, marks, &sm, 0)
	}
}

func compareTake(t *testing.T, what string, base backend.Addr, m *bumpModel, n, align backend.Bytes, take func(n, align backend.Bytes) (mem.StableSpan, error)) {
	s, err := take(n, align)
	want, ok := m.take(n, align)
	if ok != (err == nil) || ok && s.Addr() != base+backend.Addr(want) {
		t.Fatalf("%s Take(%d, %d) = %v, %v; model says +%d, %v", what, n, align, s, err, want, ok)
	}
}

// rewind rewinds the innermost mark, or, when pick is odd and there are two
// or more, tries an outer one first and checks that it is refused.
func rewind(t *testing.T, marks []mem.Mark, m *bumpModel, pick int) []mem.Mark {
	k := len(marks)
	if k == 0 {
		return marks
	}
	if pick%2 == 1 && k > 1 {
		if err := marks[pick%(k-1)].Rewind(); err != mem.ErrMarkOrder {
			t.Fatalf("out-of-order Rewind = %v, want ErrMarkOrder", err)
		}
	}
	if err := marks[k-1].Rewind(); err != nil {
		t.Fatalf("innermost Rewind = %v", err)
	}
	m.off = m.marks[k-1]
	m.marks = m.marks[:k-1]
	return marks[:k-1]
}

func baseOf(t *testing.T, a *mem.Arena) backend.Addr {
	s, _ := a.Take(0, 1)
	a.Reset()
	return s.Addr()
}

func stackBase(t *testing.T, s *mem.ScratchStack) backend.Addr {
	m := s.Mark()
	sp, _ := s.Take(0, 1)
	m.Rewind()
	return sp.Addr()
}

func FuzzArenaStack(f *testing.F) {
	f.Add([]byte{0, 10, 64, 3, 2, 0, 4, 9, 2, 0, 4, 200, 3, 1, 3, 0})
	f.Add([]byte{160, 255, 160, 255, 1, 0, 0, 1})
	fake := newFake(nil)
	f.Fuzz(func(t *testing.T, ops []byte) {
		a := mustArena(t, fake, 8*backend.KiB, backend.TagEngine)
		s := mustStack(t, fake, 8*backend.KiB)
		defer a.Close()
		defer s.Close()
		replayStack(t, a, s, ops)
	})
}

func TestStackRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	f := newFake(nil)
	a, s := mustArena(t, f, 64*backend.KiB, backend.TagEngine), mustStack(t, f, 64*backend.KiB)
	ops := make([]byte, 20000)
	for i := range ops {
		ops[i] = byte(rng.UintN(256))
	}
	replayStack(t, a, s, ops)
	a.Close()
	s.Close()
}
