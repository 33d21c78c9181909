package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/vramplan/vramplan/web/store"
)

// PutObservation implements store.Store.
func (s *Store) PutObservation(ctx context.Context, o store.Observation) (store.Observation, bool, error) {
	args := store.ObservationArgs(&o)
	var n, seq int64
	err := s.do(ctx, func(tx *sql.Tx) error {
		r, err := s.stmts.in(tx, store.SQLInsertObservation).Exec(args...)
		if err != nil {
			return err
		}
		if n, err = r.RowsAffected(); err != nil || n == 0 {
			return err
		}
		seq, err = r.LastInsertId()
		return err
	})
	if err != nil {
		return store.Observation{}, false, fmt.Errorf("sqlite: put observation %s: %w", o.ID, err)
	}
	if n == 1 {
		return store.StoredObservation(o, seq), true, nil
	}
	got, err := s.observation(ctx, store.SQLObservationConflict, o.ID, o.Digest)
	if err != nil {
		return store.Observation{}, false, fmt.Errorf("sqlite: put observation %s: reading the stored one: %w", o.ID, err)
	}
	return got, false, nil
}

func (s *Store) observation(ctx context.Context, q string, args ...any) (store.Observation, error) {
	st, err := s.stmts.reader(ctx, s.read, q)
	if err != nil {
		return store.Observation{}, err
	}
	return store.ScanObservation(st.QueryRowContext(ctx, args...))
}

// GetObservation implements store.Store.
func (s *Store) GetObservation(ctx context.Context, id string) (store.Observation, error) {
	return store.Found(s.observation(ctx, store.SQLObservationByID, id))
}

// DeleteObservation implements store.Store.
func (s *Store) DeleteObservation(ctx context.Context, id, tokenHash string) error {
	var n int64
	err := s.do(ctx, func(tx *sql.Tx) error {
		r, err := s.stmts.in(tx, store.SQLDeleteObservation).Exec(id, tokenHash)
		if err == nil {
			n, err = r.RowsAffected()
		}
		return err
	})
	if err != nil || n == 1 {
		return err
	}
	return store.NotDeleted(s.GetObservation(ctx, id))
}

// Observations implements store.Store.
func (s *Store) Observations(ctx context.Context, q store.ObservationQuery) ([]store.Observation, error) {
	query, args := store.SQLObservations(q)
	st, err := s.stmts.reader(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	return store.CollectObservations(st.QueryContext(ctx, args...))
}
