package agent

import (
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// Bounds returns the limits a step must respect: the framing limits
// lowered to the plan's max_batch and max_seq_len.
func (a *Agent) Bounds() wire.Bounds {
	g := a.geometry
	return wire.Bounds{
		MaxOps:    min(wire.MaxOps, max(2*g.maxBatch, 64)),
		MaxBatch:  min(wire.MaxBatch, g.maxBatch),
		MaxTokens: g.maxSeqLen,
		MaxHashes: int(min(int64(wire.MaxHashes), ceilDiv(int64(g.maxSeqLen), int64(g.blockTokens)))),
	}
}

// Step applies one scheduler step for conn's lease: the general operations
// in order, then one decode token per sequence. A request that breaks the
// bounds or names no lease of conn fails whole; otherwise each operation
// succeeds or fails on its own. res is reused if not nil.
func (a *Agent) Step(conn Conn, req *wire.Step, res *wire.StepResult) (*wire.StepResult, *wire.Error) {
	if err := req.Check(a.Bounds()); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	l, err := a.lookup(conn, req.Lease)
	if err != nil {
		return nil, err
	}
	a.shrink.steps++
	if res == nil {
		res = new(wire.StepResult)
	}
	res.Results = res.Results[:0]
	for i := range req.Ops {
		res.Results = append(res.Results, a.apply(l, &req.Ops[i]))
	}
	res.Decode = nil
	if req.Decode != nil {
		res.Decode = a.decode(l, req.Decode, new(wire.DecodeResult))
	}
	return res, nil
}

// Decode applies a step of decode tokens alone for conn's lease, the hot
// path of an engine's scheduler: one token for each sequence in d, the
// outcome written into res, whose slices are reused. It fails whole as
// Step does; otherwise each sequence succeeds or fails on its own.
func (a *Agent) Decode(conn Conn, lease string, d *wire.Decode, res *wire.DecodeResult) *wire.Error {
	st := wire.Step{Lease: lease, Decode: d}
	if err := st.Check(a.Bounds()); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	l, err := a.lookup(conn, lease)
	if err != nil {
		return err
	}
	a.shrink.steps++
	a.decode(l, d, res)
	return nil
}

// Admit applies one admission for conn's lease.
func (a *Agent) Admit(conn Conn, lease string, op *wire.Op) (wire.Result, *wire.Error) {
	st := wire.Step{Lease: lease, Ops: []wire.Op{*op}}
	if op.Op != wire.OpAdmit {
		return wire.Result{}, wire.Errorf(wire.CodeBadRequest, "op %q is not admit", op.Op)
	}
	res, err := a.Step(conn, &st, nil)
	if err != nil {
		return wire.Result{}, err
	}
	return res.Results[0], nil
}

func (a *Agent) apply(l *lease, op *wire.Op) wire.Result {
	var r wire.Result
	var err *wire.Error
	if l.ended { // while an earlier operation waited for its client
		return wire.Result{Error: a.noLease(l.id)}
	}
	switch op.Op {
	case wire.OpAdmit:
		r, err = a.admit(l, op)
	case wire.OpAppend:
		r, err = a.appendOp(l, op)
	case wire.OpFork:
		r, err = a.fork(l, op)
	case wire.OpFree:
		err = a.free(l, op.Seq)
	case wire.OpPin:
		r.Pinned, err = a.pin(l, op.Hashes)
	case wire.OpUnpin:
		a.kv.Unpin(l.id)
		l.pins = 0
	case wire.OpTable:
		r, err = a.table(l, op.Seq)
	}
	if err != nil {
		return wire.Result{Error: err}
	}
	return r
}

func (l *lease) seq(h uint64) (*seqState, *wire.Error) {
	st := l.seqs[h]
	if st == nil {
		return nil, wire.Errorf(wire.CodeNoSequence, "no sequence %d in this lease", h)
	}
	return st, nil
}

func (a *Agent) admit(l *lease, op *wire.Op) (wire.Result, *wire.Error) {
	if op.Tokens > op.MaxTokens {
		return wire.Result{}, wire.Errorf(wire.CodeOverLimit, "prompt of %d tokens over max_tokens %d", op.Tokens, op.MaxTokens)
	}
	st, err := a.reserve(l, op.MaxTokens)
	if err != nil {
		return wire.Result{}, err
	}
	st.s = a.kv.NewSequence()
	st.makeRoom()
	h := a.adopt(l, st)
	blocks, hits, err := a.grow(st, op.Tokens, op.Hashes, nil)
	if err != nil {
		if !l.ended { // else ending the lease ended the sequence
			a.endSeq(l, h, st)
		}
		return wire.Result{}, err
	}
	a.counters.admitted++
	return wire.Result{Seq: h, Blocks: blocks, Hits: hits}, nil
}

func (a *Agent) appendOp(l *lease, op *wire.Op) (wire.Result, *wire.Error) {
	st, err := l.seq(op.Seq)
	if err != nil {
		return wire.Result{}, err
	}
	blocks, hits, err := a.grow(st, op.Tokens, op.Hashes, nil)
	return wire.Result{Seq: op.Seq, Blocks: blocks, Hits: hits}, err
}

// fork makes a sequence sharing the parent's blocks. The parent's last
// block, when partly written, is copied rather than shared, and SWA blocks
// are always copied: the result names the copies the engine must make.
func (a *Agent) fork(l *lease, op *wire.Op) (wire.Result, *wire.Error) {
	p, err := l.seq(op.Seq)
	if err != nil {
		return wire.Result{}, err
	}
	maxTok := op.MaxTokens
	if maxTok == 0 {
		maxTok = p.max
	}
	if maxTok < p.tokens {
		return wire.Result{}, wire.Errorf(wire.CodeOverLimit, "max_tokens %d below the parent's %d tokens", maxTok, p.tokens)
	}
	copyLast := p.tokens%a.geometry.blockTokens != 0
	if err := a.commitFor(l, int64(p.s.SWALen()+1)); err != nil {
		return wire.Result{}, err
	}
	st, err := a.reserve(l, maxTok)
	if err != nil {
		return wire.Result{}, err
	}
	s, copies, ferr := p.s.Fork(copyLast)
	if ferr != nil { // the promise makes this unreachable
		a.unreserve(st)
		return wire.Result{}, wire.Errorf(wire.CodeInternal, "fork past the promise: %v", ferr)
	}
	st.s, st.tokens, st.swaFirst = s, p.tokens, p.swaFirst
	st.makeRoom()
	a.counters.forks++
	r := wire.Result{Seq: a.adopt(l, st), Blocks: s.BlockTable(nil), Copies: wireCopies(copies)}
	if len(r.Blocks) > 0 {
		a.global.backed(s.LastID(), a.usable())
	}
	return r, nil
}

func wireCopies(cs []kv.Copy) []wire.Copy {
	out := make([]wire.Copy, len(cs))
	for i, c := range cs {
		out[i] = wire.Copy{SWA: c.SWA, From: int32(c.From), To: int32(c.To)}
	}
	return out
}

func (a *Agent) free(l *lease, h uint64) *wire.Error {
	st, err := l.seq(h)
	if err != nil {
		return err
	}
	a.endSeq(l, h, st)
	return nil
}

// pin pins cached prefix blocks for the lease, if the pool can still keep
// every promise with them held out of reclaim.
func (a *Agent) pin(l *lease, hashes []uint64) (int, *wire.Error) {
	n := int64(len(hashes))
	if l.pins+n > int64(a.global.ids.Blocks()) { // each pin is remembered until unpin
		return 0, wire.Errorf(wire.CodeTooLarge, "%d pins on this lease, at most %d: unpin first", l.pins+n, a.global.ids.Blocks())
	}
	if avail := a.global.available(int64(a.kv.Stats().PinnedBlocks)); n > avail {
		return 0, a.capacity("global", n, avail, int64(a.global.ids.Blocks()))
	}
	hs := make([]kv.Hash, len(hashes))
	for i, h := range hashes {
		hs[i] = salted(h, l.salt)
	}
	got := a.kv.Pin(l.id, hs...)
	l.pins += int64(got)
	return got, nil
}

func (a *Agent) table(l *lease, h uint64) (wire.Result, *wire.Error) {
	st, err := l.seq(h)
	if err != nil {
		return wire.Result{}, err
	}
	return wire.Result{Seq: h, Blocks: st.s.BlockTable(nil)}, nil
}

// decode appends one token to each sequence, the outcome into res.
func (a *Agent) decode(l *lease, d *wire.Decode, res *wire.DecodeResult) *wire.DecodeResult {
	res.Blocks = append(res.Blocks[:0], make([]int32, len(d.Seqs))...)
	res.Errors = res.Errors[:0]
	var one [1]uint64
	for i, h := range d.Seqs {
		var hashes []uint64
		if len(d.Hashes) > 0 && d.Hashes[i] != 0 {
			one[0] = d.Hashes[i]
			hashes = one[:]
		}
		err := a.decodeOne(l, h, hashes, &res.Blocks[i])
		if err != nil {
			res.Errors = append(res.Errors, wire.IndexErr{Index: i, Error: err})
		}
	}
	return res
}

func (a *Agent) decodeOne(l *lease, h uint64, hashes []uint64, dst *int32) *wire.Error {
	if l.ended {
		return a.noLease(l.id)
	}
	st, err := l.seq(h)
	if err != nil {
		return err
	}
	var buf [1]int32
	out, _, err := a.grow(st, 1, hashes, buf[:0])
	if len(out) > 0 {
		*dst = out[0]
	}
	return err
}
