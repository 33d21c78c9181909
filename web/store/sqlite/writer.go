package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"time"

	"github.com/vramplan/vramplan/web/store"
)

// An op is one write waiting for the writer. Its run is called on the
// writer's goroutine inside the batch's transaction; done receives its
// result, after the commit unless early is set.
type op struct {
	run    func(tx *sql.Tx) error
	early  bool
	done   chan error
	handed time.Time // when do was called
}

// Stats are a Store's writer's counters since Open: where a write's time
// goes. Waiting is the time writes waited for their batch to begin,
// summed over writes; Running and Committing the time batches spent
// running their writes and committing them, summed over batches.
type Stats struct {
	Writes, Batches, Refused     int64
	Waiting, Running, Committing time.Duration
	// Syncs counts the syncer's fsyncs of the log (each covers the batches
	// committed while the one before ran), Syncing their time.
	Syncs   int64
	Syncing time.Duration
	// Restarts counts the writer's checkpoints that let the log start
	// again (restartLog), Restarting the time the writer spent in them,
	// during which no write ran.
	Restarts   int64
	Restarting time.Duration
}

// counters are the atomic form of Stats.
type counters struct {
	writes, batches, refused, syncs, restarts         atomic.Int64
	waiting, running, committing, syncing, restarting atomic.Int64 // nanoseconds
}

// Stats returns the writer's counters.
func (s *Store) Stats() Stats {
	c := &s.counters
	return Stats{Writes: c.writes.Load(), Batches: c.batches.Load(), Refused: c.refused.Load(),
		Waiting: time.Duration(c.waiting.Load()), Running: time.Duration(c.running.Load()), Committing: time.Duration(c.committing.Load()),
		Syncs: c.syncs.Load(), Syncing: time.Duration(c.syncing.Load()),
		Restarts: c.restarts.Load(), Restarting: time.Duration(c.restarting.Load())}
}

// maxWaiting bounds the writes waiting for the writer or in its batch: past
// it a write is refused with store.ErrBusy at once. Each waiting write holds
// a request's goroutine and its upload (≤ 64 KiB), so the bound is one on
// memory (32 MiB of uploads), and at the writer's rate of a few thousand
// writes a second it is about a fifth of a second of waiting: a server
// offered more than it can commit refuses the excess at once rather than
// answering everything late.
const maxWaiting = 512

// do hands run to the writer and waits for its result. A context that ends
// first returns its error; the write may still be committed, which is why
// every write is one that is safe to repeat. With maxWaiting writes already
// waiting it returns store.ErrBusy without waiting.
func (s *Store) do(ctx context.Context, early bool, run func(tx *sql.Tx) error) error {
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		s.counters.refused.Add(1)
		return store.ErrBusy
	}
	o := &op{run: run, early: early, done: make(chan error, 1), handed: time.Now()}
	select {
	case s.ops <- o:
	case <-s.closed:
		s.waiting.Add(-1)
		return ErrClosed
	case <-ctx.Done():
		s.waiting.Add(-1)
		return ctx.Err()
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer commits the writes in batches until Close. Every op it has
// received is answered: s.ops is unbuffered, so a sender whose send went
// through is in a batch.
func (s *Store) writer() {
	defer close(s.stopped)
	defer close(s.syncs)
	for {
		select {
		case o := <-s.ops:
			if b := s.begin(o); b != nil {
				s.linger(b)
				s.commit(b)
				s.restartLog()
			}
		case <-s.closed:
			return
		}
	}
}

// A batch is the open transaction of one batch of writes, the writes run
// in it and their results.
type batch struct {
	tx    *sql.Tx
	ops   []*op
	errs  []error
	began time.Time
}

// begin opens a batch's transaction and runs o in it. When the
// transaction cannot begin it answers o with the error and returns nil.
func (s *Store) begin(o *op) *batch {
	b := &batch{began: time.Now()}
	var err error
	if b.tx, err = s.write.BeginTx(context.Background(), nil); err != nil {
		s.answer(o, err)
		return nil
	}
	s.add(b, o)
	return b
}

// add runs o in b. Each op's error is its own: a statement that fails is
// undone by SQLite alone and the transaction goes on, so one refused write
// does not fail the others.
func (s *Store) add(b *batch, o *op) {
	s.counters.waiting.Add(int64(time.Since(o.handed)))
	err := o.run(b.tx)
	if o.early {
		s.answer(o, err)
		return
	}
	b.ops, b.errs = append(b.ops, o), append(b.errs, err)
}

// linger runs in b the writes already waiting, and those that arrive until
// the syncer is ready for another batch or b holds maxBatch writes, and
// takes the syncer's turn. While the syncer flushes the last batch to
// disk the next one grows, so the writes wait for the disk together.
func (s *Store) linger(b *batch) {
	for n := 1; n < maxBatch; n++ {
		select {
		case o := <-s.ops:
			s.add(b, o)
			continue
		default:
		}
		select {
		case o := <-s.ops:
			s.add(b, o)
		case <-s.ready:
			return
		}
	}
	<-s.ready
}

// commit stores the counters b changed (hits.go), commits b and hands it
// to the syncer, which answers its writes once they are durable (sync.go);
// the caller has taken the syncer's turn. A failed commit fails every
// write in b.
func (s *Store) commit(b *batch) {
	ran := time.Now()
	err := s.hits.flush(b.tx, &s.stmts)
	if err != nil {
		err = errors.Join(errors.New("sqlite: storing the rate-limit counters"), err, b.tx.Rollback())
	} else if err = b.tx.Commit(); err != nil {
		err = errors.Join(errors.New("sqlite: commit"), err)
	}
	s.hits.done(err == nil)
	if err != nil {
		for i := range b.errs {
			b.errs[i] = err
		}
	}
	c := &s.counters
	c.running.Add(int64(ran.Sub(b.began)))
	c.committing.Add(int64(time.Since(ran)))
	c.writes.Add(int64(len(b.ops)))
	c.batches.Add(1)
	s.syncs <- committed{ops: b.ops, errs: b.errs}
}

// answer sends o its result; o no longer counts as waiting.
func (s *Store) answer(o *op, err error) {
	s.waiting.Add(-1)
	o.done <- err
}
