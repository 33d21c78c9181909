package agent

import (
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// seqState is one sequence a lease holds: the KV sequence, its tokens, its
// maximum, and the blocks admission promised it.
type seqState struct {
	s        *kv.Sequence
	tokens   int
	max      int
	credits  int64 // global blocks promised: ⌈max / block_tokens⌉
	swaCred  int64 // SWA blocks promised
	swaFirst int   // first SWA slot not yet evicted
	owner    *lease
}

// makeRoom grows st's block tables to the blocks it was promised, so its
// decode steps never allocate (the promise bounds the total by the pool).
func (st *seqState) makeRoom() {
	st.s.Grow(max(0, int(st.credits)-st.s.Len()))
}

// promise is what admitting a sequence of max tokens takes from the pools.
func (a *Agent) promise(max int) (global, swa int64) {
	global = ceilDiv(int64(max), int64(a.geometry.blockTokens))
	if a.swa != nil {
		swa = min(a.geometry.swaPerSeq, global)
	}
	return global, swa
}

// reserve promises l the blocks for a sequence of max tokens, or refuses
// with a capacity error carrying the arithmetic (I6), or a quota error.
func (a *Agent) reserve(l *lease, max int) (*seqState, *wire.Error) {
	g, s := a.promise(max)
	if err := a.leaseFull(l, g); err != nil {
		return nil, err
	}
	pinned := int64(a.kv.Stats().PinnedBlocks)
	if avail := a.global.available(pinned); g > avail {
		return nil, a.capacity("global", g, avail, int64(a.global.ids.Blocks()))
	}
	if a.swa != nil {
		if avail := a.swa.available(0); s > avail {
			return nil, a.capacity("SWA", s, avail, int64(a.swa.ids.Blocks()))
		}
		a.swa.credits += s
	}
	a.global.credits += g
	l.credits += g
	return &seqState{max: max, credits: g, swaCred: s, owner: l}, nil
}

func (a *Agent) capacity(pool string, need, avail, total int64) *wire.Error {
	a.counters.refused++
	e := wire.Errorf(wire.CodeCapacity, "the %s KV pool cannot promise %d blocks: %d of %d are promised to open sequences or pinned",
		pool, need, total-avail, total)
	e.NeedBlocks, e.AvailableBlocks, e.PoolBlocks = need, max(avail, 0), total
	return e
}

// adopt gives st a handle in l.
func (a *Agent) adopt(l *lease, st *seqState) uint64 {
	l.next++
	l.seqs[l.next] = st
	a.seqs++
	return l.next
}

// endSeq closes a sequence through kv.Sequence.Close and returns its promise.
func (a *Agent) endSeq(l *lease, h uint64, st *seqState) {
	st.s.Close()
	a.shrink.closed++
	a.unreserve(st)
	delete(l.seqs, h)
	a.seqs--
}

// unreserve returns st's promise.
func (a *Agent) unreserve(st *seqState) {
	a.global.credits -= st.credits
	st.owner.credits -= st.credits
	if a.swa != nil {
		a.swa.credits -= st.swaCred
	}
}

// grow appends n tokens to st. hashes name, in order, the blocks these
// tokens complete (fewer is fine; 0 means unknown). New global block ids
// are appended to out. It fails, changing nothing, when n exceeds the
// sequence's maximum or the pools cannot commit.
func (a *Agent) grow(st *seqState, n int, hashes []uint64, out []int32) ([]int32, int, *wire.Error) {
	if n > st.max-st.tokens {
		return out, 0, wire.Errorf(wire.CodeOverLimit, "%d tokens past the sequence's max_tokens %d (at %d)", n, st.max, st.tokens)
	}
	bt := a.geometry.blockTokens
	have, want := st.s.Len(), (st.tokens+n+bt-1)/bt
	first := st.tokens / bt // first block these tokens complete or touch
	if done := (st.tokens+n)/bt - first; len(hashes) > done {
		return out, 0, wire.Errorf(wire.CodeBadRequest, "%d hashes for %d completed blocks", len(hashes), done)
	}
	if err := a.commitFor(st.owner, int64(want-have)); err != nil {
		return out, 0, err
	}
	hits := 0
	for pos := first; pos < want; pos++ {
		var h kv.Hash
		if k := pos - first; k < len(hashes) {
			h = salted(hashes[k], st.owner.salt)
		}
		if pos < have {
			if h != 0 {
				st.s.Seal(pos, h)
			}
			continue
		}
		hit, err := a.appendBlock(st, pos, h)
		if err != nil {
			return out, hits, err
		}
		if hit {
			hits++
		}
		out = append(out, int32(st.s.LastID()))
	}
	st.tokens += n
	return out, hits, nil
}

// appendBlock adds the block at pos, and its SWA block.
func (a *Agent) appendBlock(st *seqState, pos int, h kv.Hash) (bool, *wire.Error) {
	hit, err := st.s.Append(h)
	if err != nil { // the promise makes this unreachable
		return false, wire.Errorf(wire.CodeInternal, "append past the promise: %v", err)
	}
	a.global.backed(st.s.LastID(), a.usable())
	if h != 0 && !hit {
		st.s.Seal(pos, h)
	}
	if a.swa == nil {
		return hit, nil
	}
	if live := st.s.SWALen() - st.swaFirst; int64(live) >= a.geometry.swaPerSeq {
		st.s.EvictSWA(st.swaFirst, st.swaFirst+1)
		st.swaFirst++
	}
	if err := st.s.AppendSWA(); err != nil {
		return hit, wire.Errorf(wire.CodeInternal, "SWA append past the promise: %v", err)
	}
	return hit, nil
}

// commitFor commits the pools so that n more blocks (and their SWA
// blocks) are backed, and, when l's client maps the global pool, waits
// (not holding the lock) until it has mapped every chunk of it. It fails
// when the backend cannot commit or l ended meanwhile.
func (a *Agent) commitFor(l *lease, n int64) *wire.Error {
	if n <= 0 {
		return nil
	}
	for {
		if err := a.ensureGlobal(int64(a.global.ids.Live()) + n); err != nil {
			return err
		}
		waited, err := a.awaitMapped(l)
		if err != nil {
			return err
		}
		if !waited { // what it ensured still holds
			break
		}
	}
	if a.swa != nil {
		if _, _, err := a.swa.ensure(a.b, int64(a.swa.ids.Live())+n); err != nil {
			return a.commitFailed(err)
		}
	}
	return nil
}

// ensureGlobal backs the first blocks blocks of the global pool: it takes
// back chunks an unmap in flight is giving back, then commits, and sends
// every mapping client the chunks either adds.
func (a *Agent) ensureGlobal(blocks int64) *wire.Error {
	p := a.global
	need := backend.Bytes(min(blocks, int64(p.ids.Blocks()))) * p.stride
	if a.leaving != 0 && need > a.leaving {
		to := min(p.r.Committed(), backend.AlignUp(need, p.chunk))
		a.broadcastMap(a.leaving, to)
		a.leaving = to
		if to == p.r.Committed() {
			a.leaving = 0 // nothing is given back any more
		}
	}
	from, to, err := p.ensure(a.b, blocks)
	if err != nil {
		return a.commitFailed(err)
	}
	if to > from {
		a.broadcastMap(from, to)
	}
	return nil
}

// usable is how much of the global pool blocks may be handed out in: the
// commit, less what an unmap in flight gives back.
func (a *Agent) usable() backend.Bytes {
	if a.leaving != 0 {
		return a.leaving
	}
	return a.global.r.Committed()
}

func (a *Agent) commitFailed(err error) *wire.Error {
	a.counters.refused++
	return wire.Errorf(wire.CodeCapacity, "the device could not commit KV memory inside the reservation: %v", err)
}
