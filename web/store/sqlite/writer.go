package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// An op is one write waiting for the writer. Its run is called on the
// writer's goroutine inside the batch's transaction; done receives its
// result, after the commit unless early is set.
type op struct {
	run   func(tx *sql.Tx) error
	early bool
	done  chan error
}

// do hands run to the writer and waits for its result. A context that ends
// first returns its error; the write may still be committed, which is why
// every write is one that is safe to repeat.
func (s *Store) do(ctx context.Context, early bool, run func(tx *sql.Tx) error) error {
	o := &op{run: run, early: early, done: make(chan error, 1)}
	select {
	case s.ops <- o:
	case <-s.closed:
		return ErrClosed
	case <-ctx.Done():
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

// fill adds the writes already waiting to batch, up to maxBatch.
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

// commit runs batch in one transaction. Each op's error is its own (a
// failed statement is undone by SQLite alone); a failed commit fails every
// op not yet answered.
func (s *Store) commit(batch []*op) {
	tx, err := s.write.BeginTx(context.Background(), nil)
	if err != nil {
		for _, o := range batch {
			o.done <- err
		}
		return
	}
	errs := make([]error, len(batch))
	for i, o := range batch {
		errs[i] = o.run(tx)
		if o.early {
			o.done <- errs[i]
		}
	}
	if err := tx.Commit(); err != nil {
		err = errors.Join(errors.New("sqlite: commit"), err)
		for i := range errs {
			errs[i] = err
		}
	}
	for i, o := range batch {
		if !o.early {
			o.done <- errs[i]
		}
	}
}
