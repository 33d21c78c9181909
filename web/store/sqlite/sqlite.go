// Package sqlite implements store.Store on an SQLite file through
// modernc.org/sqlite (pure Go, no cgo): the native server's default store.
//
// The file is in WAL mode with synchronous=FULL, so a write that returned
// is on disk. An fsync costs about a millisecond, so writes are committed
// in groups: one goroutine owns the only writing connection, takes every
// write that is waiting, runs them (each the same single statement another
// store.Store implementation would run) in one transaction and answers them
// when it commits. Reads run beside it on a pool of read-only connections,
// which WAL lets see the last commit without waiting for the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/vramplan/vramplan/web/store"
)

// Store is a store.Store on one SQLite file. It is safe for concurrent use;
// Close must be called to stop its writer.
type Store struct {
	read, write *sql.DB
	ops         chan *op
	closed      chan struct{}
	stopped     chan struct{}
	closeOnce   sync.Once
	stmts       stmts
}

var _ store.Store = (*Store)(nil)

// maxBatch bounds the writes one transaction commits.
const maxBatch = 256

// readConns is the size of the read pool.
const readConns = 4

// ErrClosed is returned by calls after Close.
var ErrClosed = errors.New("sqlite: store is closed")

// Open opens the database file at path, creating it when it does not
// exist, and applies the schema's migrations.
func Open(path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: database path %q: want a file name without '?' or '#'", path)
	}
	const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	write, err := sql.Open("sqlite", path+pragmas+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	if err := store.Migrate(context.Background(), write); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	read, err := sql.Open("sqlite", path+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(readConns)
	read.SetMaxIdleConns(readConns)
	s := &Store{read: read, write: write, ops: make(chan *op), closed: make(chan struct{}), stopped: make(chan struct{})}
	if err := s.stmts.prepareWrites(write); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: %s: %w", path, err), read.Close(), write.Close())
	}
	go s.writer()
	return s, nil
}

// Close stops the writer once the writes it has taken are committed, and
// closes the file.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closed)
		<-s.stopped
		err = errors.Join(s.stmts.close(), s.read.Close(), s.write.Close())
	})
	return err
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, u store.Upload) (store.Upload, bool, error) {
	args := store.InsertArgs(&u)
	var n, seq int64
	err := s.do(ctx, false, func(tx *sql.Tx) error {
		r, err := s.stmts.in(tx, store.SQLInsertUpload).Exec(args...)
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
		return store.Upload{}, false, fmt.Errorf("sqlite: put %s: %w", u.ID, err)
	}
	if n == 1 {
		return store.Stored(u, seq), true, nil
	}
	got, err := s.queryRow(ctx, store.SQLUploadConflict, u.ID, u.Digest)
	if err != nil {
		return store.Upload{}, false, fmt.Errorf("sqlite: put %s: reading the stored upload: %w", u.ID, err)
	}
	return got, false, nil
}

// queryRow reads one upload with a prepared read statement.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) (store.Upload, error) {
	st, err := s.stmts.reader(ctx, s.read, q)
	if err != nil {
		return store.Upload{}, err
	}
	return store.ScanUpload(st.QueryRowContext(ctx, args...))
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, id string) (store.Upload, error) {
	return store.Found(s.queryRow(ctx, store.SQLUploadByID, id))
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, id, tokenHash string) error {
	var n int64
	err := s.do(ctx, false, func(tx *sql.Tx) error {
		r, err := s.stmts.in(tx, store.SQLDeleteUpload).Exec(id, tokenHash)
		if err == nil {
			n, err = r.RowsAffected()
		}
		return err
	})
	if err != nil || n == 1 {
		return err
	}
	return store.NotDeleted(s.Get(ctx, id))
}

// Uploads implements store.Store.
func (s *Store) Uploads(ctx context.Context, q store.Query) ([]store.Upload, error) {
	query, args := store.SQLUploads(q)
	st, err := s.stmts.reader(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	return store.CollectUploads(st.QueryContext(ctx, args...))
}

// Groups implements store.Store.
func (s *Store) Groups(ctx context.Context) ([]store.Group, error) {
	return store.CollectGroups(s.read.QueryContext(ctx, store.SQLGroups))
}

// PutAggregate implements store.Store.
func (s *Store) PutAggregate(ctx context.Context, group string, version int64, doc []byte) error {
	return s.do(ctx, false, func(tx *sql.Tx) error {
		_, err := s.stmts.in(tx, store.SQLPutAggregate).Exec(group, version, string(doc))
		return err
	})
}

// Hit implements store.Store. A counter is answered once its statement
// ran, before its batch commits: a count lost to a crash only lets one more
// request through.
func (s *Store) Hit(ctx context.Context, key string, window int64) (int64, error) {
	var n int64
	err := s.do(ctx, true, func(tx *sql.Tx) error {
		return s.stmts.in(tx, store.SQLHit).QueryRow(key, window).Scan(&n)
	})
	return n, err
}

// Sweep implements store.Store.
func (s *Store) Sweep(ctx context.Context, before int64) error {
	return s.do(ctx, false, func(tx *sql.Tx) error {
		_, err := s.stmts.in(tx, store.SQLSweep).Exec(before)
		return err
	})
}

// Setting implements store.Store.
func (s *Store) Setting(ctx context.Context, name, proposed string) (string, error) {
	err := s.do(ctx, false, func(tx *sql.Tx) error {
		_, err := s.stmts.in(tx, store.SQLInsertSetting).Exec(name, proposed)
		return err
	})
	if err != nil {
		return "", err
	}
	var v string
	err = s.read.QueryRowContext(ctx, store.SQLSetting, name).Scan(&v)
	return v, err
}
