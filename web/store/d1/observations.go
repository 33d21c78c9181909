//go:build js && wasm

package d1

import (
	"context"
	"fmt"

	"github.com/vramplan/vramplan/web/store"
)

// PutObservation implements store.Store.
func (s *Store) PutObservation(ctx context.Context, o store.Observation) (store.Observation, bool, error) {
	r, err := s.db.ExecContext(ctx, store.SQLInsertObservation, store.ObservationArgs(&o)...)
	if err != nil {
		return store.Observation{}, false, fmt.Errorf("d1: put observation %s: %w", o.ID, err)
	}
	if n, err := r.RowsAffected(); err != nil {
		return store.Observation{}, false, fmt.Errorf("d1: put observation %s: %w", o.ID, err)
	} else if n > 0 {
		var seq int64
		if err := s.db.QueryRowContext(ctx, store.SQLObservationSeq, o.ID).Scan(&seq); err != nil {
			return store.Observation{}, false, fmt.Errorf("d1: put observation %s: reading its sequence number: %w", o.ID, err)
		}
		return store.StoredObservation(o, seq), true, nil
	}
	got, err := store.ScanObservation(s.db.QueryRowContext(ctx, store.SQLObservationConflict, o.ID, o.Digest))
	if err != nil {
		return store.Observation{}, false, fmt.Errorf("d1: put observation %s: reading the stored one: %w", o.ID, err)
	}
	return got, false, nil
}

// GetObservation implements store.Store.
func (s *Store) GetObservation(ctx context.Context, id string) (store.Observation, error) {
	return store.Found(store.ScanObservation(s.db.QueryRowContext(ctx, store.SQLObservationByID, id)))
}

// DeleteObservation implements store.Store.
func (s *Store) DeleteObservation(ctx context.Context, id, tokenHash string) error {
	r, err := s.db.ExecContext(ctx, store.SQLDeleteObservation, id, tokenHash)
	if err != nil {
		return fmt.Errorf("d1: delete observation %s: %w", id, err)
	}
	if n, err := r.RowsAffected(); err != nil || n > 0 {
		return err
	}
	return store.NotDeleted(s.GetObservation(ctx, id))
}

// Observations implements store.Store.
func (s *Store) Observations(ctx context.Context, q store.ObservationQuery) ([]store.Observation, error) {
	query, args := store.SQLObservations(q)
	return store.CollectObservations(s.db.QueryContext(ctx, query, args...))
}
