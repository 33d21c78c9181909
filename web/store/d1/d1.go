//go:build js && wasm

package d1

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/syumai/workers/cloudflare/d1"

	"github.com/vramplan/vramplan/web/store"
)

// Store is a store.Store on one D1 database binding. It is safe for
// concurrent use; it holds no connection of its own (D1 is reached through
// the request's runtime), so Close only stops further calls.
type Store struct {
	db *sql.DB
}

var _ store.Store = (*Store)(nil)

// Open returns the store of the D1 database bound as binding in
// wrangler.toml ("DB"). It fails when the worker has no such binding.
func Open(binding string) (*Store, error) {
	c, err := d1.OpenConnector(binding)
	if err != nil {
		return nil, fmt.Errorf("d1: binding %q: %w", binding, err)
	}
	return &Store{db: sql.OpenDB(c)}, nil
}

// DB returns the database the store runs on, for migrations and tests.
func (s *Store) DB() *sql.DB { return s.db }

// Close implements store.Store.
func (s *Store) Close() error { return s.db.Close() }

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, u store.Upload) (store.Upload, bool, error) {
	r, err := s.db.ExecContext(ctx, store.SQLInsertUpload, store.InsertArgs(&u)...)
	if err != nil {
		return store.Upload{}, false, fmt.Errorf("d1: put %s: %w", u.ID, err)
	}
	// D1 counts the rows the triggers change too: any change is the insert.
	if n, err := r.RowsAffected(); err != nil {
		return store.Upload{}, false, fmt.Errorf("d1: put %s: %w", u.ID, err)
	} else if n > 0 {
		return s.stored(ctx, u)
	}
	got, err := store.ScanUpload(s.db.QueryRowContext(ctx, store.SQLUploadConflict, u.ID, u.Digest))
	if err != nil {
		return store.Upload{}, false, fmt.Errorf("d1: put %s: reading the stored upload: %w", u.ID, err)
	}
	return got, false, nil
}

// stored returns u as this Put stored it, with the sequence number D1 gave
// it, read back by id rather than from the result's last row id (which a
// trigger's insert may have set).
func (s *Store) stored(ctx context.Context, u store.Upload) (store.Upload, bool, error) {
	var seq int64
	if err := s.db.QueryRowContext(ctx, `SELECT seq FROM uploads WHERE id = ?`, u.ID).Scan(&seq); err != nil {
		return store.Upload{}, false, fmt.Errorf("d1: put %s: reading its sequence number: %w", u.ID, err)
	}
	return store.Stored(u, seq), true, nil
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, id string) (store.Upload, error) {
	return store.Found(store.ScanUpload(s.db.QueryRowContext(ctx, store.SQLUploadByID, id)))
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, id, tokenHash string) error {
	r, err := s.db.ExecContext(ctx, store.SQLDeleteUpload, id, tokenHash)
	if err != nil {
		return fmt.Errorf("d1: delete %s: %w", id, err)
	}
	if n, err := r.RowsAffected(); err != nil || n > 0 {
		return err
	}
	return store.NotDeleted(s.Get(ctx, id))
}

// Uploads implements store.Store.
func (s *Store) Uploads(ctx context.Context, q store.Query) ([]store.Upload, error) {
	query, args := store.SQLUploads(q)
	return store.CollectUploads(s.db.QueryContext(ctx, query, args...))
}

// Groups implements store.Store.
func (s *Store) Groups(ctx context.Context) ([]store.Group, error) {
	return store.CollectGroups(s.db.QueryContext(ctx, store.SQLGroups))
}

// PutAggregate implements store.Store.
func (s *Store) PutAggregate(ctx context.Context, group string, version int64, doc []byte) error {
	_, err := s.db.ExecContext(ctx, store.SQLPutAggregate, group, version, string(doc))
	return err
}

// Hit implements store.Store.
func (s *Store) Hit(ctx context.Context, key string, window int64) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, store.SQLHit, key, window).Scan(&n)
	return n, err
}

// HitCount implements store.Store.
func (s *Store) HitCount(ctx context.Context, key string, window int64) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, store.SQLHitCount, key, window).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// Sweep implements store.Store.
func (s *Store) Sweep(ctx context.Context, before int64) error {
	_, err := s.db.ExecContext(ctx, store.SQLSweep, before)
	return err
}

// Setting implements store.Store.
func (s *Store) Setting(ctx context.Context, name, proposed string) (string, error) {
	if _, err := s.db.ExecContext(ctx, store.SQLInsertSetting, name, proposed); err != nil {
		return "", err
	}
	var v string
	err := s.db.QueryRowContext(ctx, store.SQLSetting, name).Scan(&v)
	return v, err
}
