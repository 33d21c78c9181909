package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// prefixes is how many prompt families share content hashes, so prefix
// cache hits happen across clients.
const prefixes = 16

// A worker is one soak client: a connection, a lease and the sequences it
// believes it holds.
type worker struct {
	cfg  *Config
	res  *Result
	left *atomic.Int64
	rng  *rand.Rand
	c    *client.Client
	pool *client.Pool // the lease's mapping of the KV pool, when Config.Map
	lim  wire.Limits
	seqs []seq
}

type seq struct {
	h           uint64
	tokens, max int
}

func (w *worker) connect(ctx context.Context) error {
	c, err := w.cfg.dial(ctx)
	if err != nil {
		return err
	}
	l, err := c.Open(0, "soak")
	if err != nil {
		c.Close()
		return err
	}
	w.c, w.lim, w.seqs = c, l.Limits, w.seqs[:0]
	if w.cfg.Map == nil {
		return nil
	}
	im, err := w.cfg.Map()
	if err == nil {
		w.pool, err = c.MapPool(ctx, im)
	}
	if err != nil {
		c.Close()
		return fmt.Errorf("mapping the KV pool: %w", err)
	}
	return nil
}

// hangUp closes the lease's mapping and connection.
func (w *worker) hangUp() {
	if w.pool != nil {
		w.pool.Close()
		w.res.mu.Lock()
		w.res.MapTimes = append(w.res.MapTimes, w.pool.MapTimes()...)
		w.res.mu.Unlock()
		w.pool = nil
	}
	w.c.Close()
}

func (w *worker) run(ctx context.Context) error {
	if err := w.connect(ctx); err != nil {
		return err
	}
	defer func() { w.hangUp() }()
	for w.left.Load() > 0 && ctx.Err() == nil {
		n, err := w.action(ctx)
		if err != nil {
			return err
		}
		w.left.Add(-int64(n))
		atomic.AddInt64(&w.res.Ops, int64(n))
	}
	return nil
}

// action runs one randomly chosen step and returns its operation count.
func (w *worker) action(ctx context.Context) (int, error) {
	switch r := w.rng.IntN(100); {
	case r < 30 || len(w.seqs) == 0:
		return w.admit()
	case r < 55:
		return w.decode()
	case r < 65:
		return w.grow()
	case r < 72:
		return w.fork()
	case r < 90:
		return w.cancel()
	case r < 93:
		return w.pin()
	case r < 97:
		return w.misuse()
	}
	return w.disconnect(ctx)
}

func (w *worker) step(ops []wire.Op, d *wire.Decode) (*wire.StepResult, error) {
	atomic.AddInt64(&w.res.Steps, 1)
	res, err := w.c.Step(&wire.Step{Ops: ops, Decode: d})
	if err != nil {
		return nil, fmt.Errorf("step %v: %w", ops, err)
	}
	return res, nil
}

// hashes returns the content hashes of a family's first n blocks.
func hashes(family, n int) []uint64 {
	h := make([]uint64, n)
	for i := range h {
		h[i] = uint64(family)<<32 | uint64(i+1)
	}
	return h
}

func (w *worker) admit() (int, error) {
	n := 1 + w.rng.IntN(4)
	ops := make([]wire.Op, n)
	for i := range ops {
		maxTok := 1 + w.rng.IntN(w.lim.MaxSeqLen/4)
		prompt := w.rng.IntN(maxTok)
		ops[i] = wire.Op{Op: wire.OpAdmit, MaxTokens: maxTok, Tokens: prompt,
			Hashes: hashes(w.rng.IntN(prefixes), prompt/w.lim.BlockTokens)}
	}
	res, err := w.step(ops, nil)
	if err != nil {
		return 0, err
	}
	for i, r := range res.Results {
		switch {
		case isRefusal(r.Error):
			atomic.AddInt64(&w.res.Refused, 1)
		case r.Error != nil:
			return 0, fmt.Errorf("admit: %v", r.Error)
		default:
			atomic.AddInt64(&w.res.Admits, 1)
			w.seqs = append(w.seqs, seq{r.Seq, ops[i].Tokens, ops[i].MaxTokens})
		}
	}
	return n, nil
}

// decode appends one token to every sequence with room: a scheduler step.
func (w *worker) decode() (int, error) {
	var d wire.Decode
	var idx []int
	for i, s := range w.seqs {
		if s.tokens < s.max && len(d.Seqs) < w.lim.MaxBatch {
			d.Seqs = append(d.Seqs, s.h)
			idx = append(idx, i)
		}
	}
	if len(d.Seqs) == 0 {
		return w.cancel()
	}
	res, err := w.decodeStep(&d)
	if err != nil {
		return 0, err
	}
	if len(res.Errors) > 0 {
		return 0, fmt.Errorf("decode: %v", res.Errors[0].Error)
	}
	for _, i := range idx {
		w.seqs[i].tokens++
	}
	atomic.AddInt64(&w.res.Decodes, int64(len(d.Seqs)))
	return len(d.Seqs), nil
}

// decodeStep sends d as a JSON step or, half the time, as the binary
// decode call, so the soak drives both forms.
func (w *worker) decodeStep(d *wire.Decode) (*wire.DecodeResult, error) {
	if w.rng.IntN(2) == 0 {
		res, err := w.step(nil, d)
		if err != nil {
			return nil, err
		}
		return res.Decode, nil
	}
	atomic.AddInt64(&w.res.Steps, 1)
	var res wire.DecodeResult
	if err := w.c.Decode(d, &res); err != nil {
		return nil, fmt.Errorf("binary decode step: %w", err)
	}
	return &res, nil
}

func (w *worker) grow() (int, error) {
	i := w.rng.IntN(len(w.seqs))
	s := &w.seqs[i]
	room := s.max - s.tokens
	if room == 0 {
		return w.cancel()
	}
	n := 1 + w.rng.IntN(room)
	res, err := w.step([]wire.Op{{Op: wire.OpAppend, Seq: s.h, Tokens: n}}, nil)
	if err != nil {
		return 0, err
	}
	if e := res.Results[0].Error; e != nil {
		return 0, fmt.Errorf("append: %v", e)
	}
	s.tokens += n
	atomic.AddInt64(&w.res.Appends, 1)
	return 1, nil
}

func (w *worker) fork() (int, error) {
	p := w.seqs[w.rng.IntN(len(w.seqs))]
	res, err := w.step([]wire.Op{{Op: wire.OpFork, Seq: p.h}}, nil)
	if err != nil {
		return 0, err
	}
	switch r := res.Results[0]; {
	case isRefusal(r.Error):
		atomic.AddInt64(&w.res.Refused, 1)
	case r.Error != nil:
		return 0, fmt.Errorf("fork: %v", r.Error)
	default:
		atomic.AddInt64(&w.res.Forks, 1)
		w.seqs = append(w.seqs, seq{r.Seq, p.tokens, p.max})
	}
	return 1, nil
}

// cancel frees up to three sequences at once.
func (w *worker) cancel() (int, error) {
	n := min(len(w.seqs), 1+w.rng.IntN(3))
	if n == 0 {
		return w.admit()
	}
	ops := make([]wire.Op, n)
	for i := range ops {
		j := w.rng.IntN(len(w.seqs))
		ops[i] = wire.Op{Op: wire.OpFree, Seq: w.seqs[j].h}
		w.seqs[j] = w.seqs[len(w.seqs)-1]
		w.seqs = w.seqs[:len(w.seqs)-1]
	}
	res, err := w.step(ops, nil)
	if err != nil {
		return 0, err
	}
	for _, r := range res.Results {
		if r.Error != nil {
			return 0, fmt.Errorf("free: %v", r.Error)
		}
	}
	atomic.AddInt64(&w.res.Frees, int64(n))
	return n, nil
}

func (w *worker) pin() (int, error) {
	f := w.rng.IntN(prefixes)
	ops := []wire.Op{{Op: wire.OpPin, Hashes: hashes(f, 2)}}
	if w.rng.IntN(2) == 0 {
		ops = append(ops, wire.Op{Op: wire.OpUnpin})
	}
	res, err := w.step(ops, nil)
	if err != nil {
		return 0, err
	}
	for _, r := range res.Results {
		if r.Error != nil && !isRefusal(r.Error) {
			return 0, fmt.Errorf("pin: %v", r.Error)
		}
	}
	atomic.AddInt64(&w.res.Pins, 1)
	return len(ops), nil
}

// misuse makes calls the agent must refuse: a handle never issued, a
// double free, a sequence grown past its maximum.
func (w *worker) misuse() (int, error) {
	bogus := uint64(1<<40 + w.rng.IntN(1000))
	ops := []wire.Op{{Op: wire.OpFree, Seq: bogus}, {Op: wire.OpAppend, Seq: bogus, Tokens: 1}}
	if len(w.seqs) > 0 {
		s := w.seqs[len(w.seqs)-1]
		w.seqs = w.seqs[:len(w.seqs)-1]
		ops = append(ops, wire.Op{Op: wire.OpAppend, Seq: s.h, Tokens: s.max - s.tokens + 1},
			wire.Op{Op: wire.OpFree, Seq: s.h}, wire.Op{Op: wire.OpFree, Seq: s.h})
	}
	res, err := w.step(ops, nil)
	if err != nil {
		return 0, err
	}
	for i, r := range res.Results {
		if i == 3 { // the legitimate free
			continue
		}
		atomic.AddInt64(&w.res.Misuse, 1)
		if r.Error != nil {
			atomic.AddInt64(&w.res.Rejected, 1)
		}
	}
	return len(ops), nil
}

// disconnect drops the connection with everything the lease holds, and
// comes back on a new one.
func (w *worker) disconnect(ctx context.Context) (int, error) {
	w.hangUp()
	atomic.AddInt64(&w.res.Disconnects, 1)
	return 1, w.connect(ctx)
}
