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
// result after the commit.
type op struct {
	run    func(tx *sql.Tx) error
	done   chan error
	handed time.Time // when do was called
}

// Stats are a Store's writer's counters since Open. Waiting is the time
// writes waited for their batch to begin, summed over writes; Committing
// the time batches spent in their commit, the fsync of the log included,
// summed over batches.
type Stats struct {
	Writes, Batches, Refused int64
	Waiting, Committing      time.Duration
}

// counters are the atomic form of Stats.
type counters struct {
	writes, batches, refused atomic.Int64
	waiting, committing      atomic.Int64 // nanoseconds
}

// Stats returns the writer's counters.
func (s *Store) Stats() Stats {
	c := &s.counters
	return Stats{Writes: c.writes.Load(), Batches: c.batches.Load(), Refused: c.refused.Load(),
		Waiting: time.Duration(c.waiting.Load()), Committing: time.Duration(c.committing.Load())}
}

// maxWaiting bounds the writes waiting for the writer or in its batch: past
// it a write is refused with store.ErrBusy at once. Each waiting write holds
// a request's goroutine and its upload (≤ 64 KiB), so the bound is one on
// memory (32 MiB of uploads): a server offered more than it can commit
// refuses the excess at once rather than answering everything late.
const maxWaiting = 512

// maxBatch bounds the writes one transaction commits.
const maxBatch = 256

// do hands run to the writer and waits for its result. A context that ends
// first returns its error; the write may still be committed, which is why
// every write is one that is safe to repeat. With maxWaiting writes already
// waiting it returns store.ErrBusy without waiting.
func (s *Store) do(ctx context.Context, run func(tx *sql.Tx) error) error {
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		s.counters.refused.Add(1)
		return store.ErrBusy
	}
	o := &op{run: run, done: make(chan error, 1), handed: time.Now()}
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

// writer commits the waiting writes in batches until Close. Every op it has
// received is answered: s.ops is unbuffered, so a sender whose send went
// through is in a batch.
func (s *Store) writer() {
	defer close(s.stopped)
	batch := make([]*op, 0, maxBatch)
	for {
		select {
		case o := <-s.ops:
			batch = s.fill(append(batch[:0], o))
			s.commit(batch)
			clear(batch)
		case <-s.closed:
			return
		}
	}
}

// fill adds the writes already waiting to batch, up to maxBatch: those
// that arrived while the last batch committed wait for the disk together.
func (s *Store) fill(batch []*op) []*op {
	for len(batch) < maxBatch {
		select {
		case o := <-s.ops:
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// commit runs batch in one transaction and answers each write once the
// commit is durable (synchronous=FULL: SQLite syncs the log inside it).
// Each write's error is its own: a statement that fails is undone by
// SQLite alone and the transaction goes on. A failed commit fails every
// write.
func (s *Store) commit(batch []*op) {
	began := time.Now()
	tx, err := s.write.BeginTx(context.Background(), nil)
	if err != nil {
		for _, o := range batch {
			s.answer(o, err)
		}
		return
	}
	errs := make([]error, len(batch))
	for i, o := range batch {
		s.counters.waiting.Add(int64(began.Sub(o.handed)))
		errs[i] = o.run(tx)
	}
	t0 := time.Now()
	if err := tx.Commit(); err != nil {
		err = errors.Join(errors.New("sqlite: commit"), err)
		for i := range errs {
			errs[i] = err
		}
	}
	s.counters.committing.Add(int64(time.Since(t0)))
	s.counters.writes.Add(int64(len(batch)))
	s.counters.batches.Add(1)
	for i, o := range batch {
		s.answer(o, errs[i])
	}
}

// answer sends o its result; o no longer counts as waiting.
func (s *Store) answer(o *op, err error) {
	s.waiting.Add(-1)
	o.done <- err
}
