// Package sqlite implements store.Store on an SQLite file through
// modernc.org/sqlite (pure Go, no cgo): the native server's default store.
//
// The file is in WAL mode with synchronous=FULL, so a write that returned
// is on disk: SQLite syncs the log inside every commit. A sync costs about
// a millisecond, so writes are committed in groups: one goroutine owns the
// only writing connection, takes every write that is waiting, runs them
// (each the same single statement another store.Store implementation would
// run) in one transaction, commits them together and answers them once the
// commit has returned. An upload and its rate-limit counters are one write
// (Admit), so an upload waits for one commit. Past maxWaiting waiting
// writes a write is refused with store.ErrBusy. Reads run beside the
// writer on a pool of read-only connections, which WAL lets see the last
// commit without waiting for it. Checkpoints are SQLite's own.
//
// The database, its log and its shared memory are the owner's alone
// (mode 0600), and the key that turns client addresses into the hashes it
// stores is kept beside it, not in it (key.go).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/vramplan/vramplan/web/store"
)

// Store is a store.Store on one SQLite file. It is safe for concurrent use;
// Close must be called to stop its writer.
type Store struct {
	read, write *sql.DB
	ops         chan *op
	// waiting counts the writes handed to do and not yet answered, at most
	// maxWaiting.
	waiting    atomic.Int64
	maxWaiting int64
	counters   counters
	closed     chan struct{}
	stopped    chan struct{} // the writer has stopped
	closeOnce  sync.Once
	stmts      stmts
	key        []byte // ClientKey's
}

var _ store.Admitter = (*Store)(nil)

var _ store.Store = (*Store)(nil)

// readConns is the size of the read pool.
const readConns = 4

// ErrClosed is returned by calls after Close.
var ErrClosed = errors.New("sqlite: store is closed")

// Open opens the database file at path, creating it (mode 0600) when it
// does not exist, and applies the schema's migrations. It takes group and
// other permissions off an existing file and its log, and reads or creates
// the client-address key beside it (ClientKey).
func Open(path string) (*Store, error) {
	if err := ownerOnly(path); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	write, err := sql.Open("sqlite", path+pragmas+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	s := &Store{write: write, ops: make(chan *op), maxWaiting: maxWaiting,
		closed: make(chan struct{}), stopped: make(chan struct{})}
	if err := s.prepare(path); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	read, err := sql.Open("sqlite", path+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		return nil, errors.Join(err, s.stmts.close(), write.Close())
	}
	read.SetMaxOpenConns(readConns)
	read.SetMaxIdleConns(readConns)
	s.read = read
	go s.writer()
	return s, nil
}

// prepare readies the writing connection: WAL, the migrations, the
// client-address key, the prepared writes.
func (s *Store) prepare(path string) error {
	if err := walMode(s.write); err != nil {
		return err
	}
	if err := store.Migrate(context.Background(), s.write); err != nil {
		return err
	}
	var err error
	if s.key, err = clientKey(path, s.write); err != nil {
		return err
	}
	return s.stmts.prepareWrites(s.write)
}

// ownerOnly creates the database file at path with mode 0600 when it does
// not exist, and takes group and other permissions off it and off its log
// and shared-memory files when they have any. SQLite creates the log and
// the shared memory with the database file's permissions (os_unix.c,
// findCreateFileMode), so a file created 0600 keeps all three the owner's.
func ownerOnly(path string) error {
	if path == "" || strings.ContainsAny(path, "?#") || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return fmt.Errorf("database path %q: want a file name without '?' or '#'", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// walMode checks that db's file is in WAL mode: the read pool reads beside
// the writer only in WAL mode (a file system without shared memory has
// none).
func walMode(db *sql.DB) error {
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode %q: the store needs WAL", mode)
	}
	return nil
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
	var in inserted
	err := s.do(ctx, in.run(s, store.InsertArgs(&u)))
	return s.put(ctx, &u, in, err)
}

// Admit implements store.Admitter: the limits are counted and the upload
// inserted in one write, so the upload waits for one commit.
func (s *Store) Admit(ctx context.Context, limits []store.Limit, u *store.Upload) (store.Admission, error) {
	a := s.admission(limits, u)
	return a.result(ctx, s.do(ctx, a.run))
}

// An admission is one Admit: its write, run by the writer, and what the
// write did.
type admission struct {
	s      *Store
	limits []store.Limit
	u      *store.Upload
	args   []any
	over   int
	in     inserted
}

func (s *Store) admission(limits []store.Limit, u *store.Upload) *admission {
	a := &admission{s: s, limits: limits, u: u, over: -1}
	if u != nil {
		a.args = store.InsertArgs(u)
	}
	return a
}

// run counts the limits and, when none is passed, inserts the upload.
func (a *admission) run(tx *sql.Tx) error {
	var err error
	a.over, err = store.Count(a.limits, func(key string, window int64) (int64, error) { return a.s.hit(tx, key, window) })
	if err != nil || a.over >= 0 || a.u == nil {
		return err
	}
	return a.in.run(a.s, a.args)(tx)
}

// result returns Admit's results once the write has been answered err.
func (a *admission) result(ctx context.Context, err error) (store.Admission, error) {
	adm := store.Admission{Over: a.over}
	if err != nil || a.over >= 0 || a.u == nil {
		return adm, err
	}
	adm.Upload, adm.Created, err = a.s.put(ctx, a.u, a.in, nil)
	return adm, err
}

// inserted is what an upload's insert did: the rows it added (0 when the
// upload was stored before) and its sequence number.
type inserted struct{ n, seq int64 }

// run returns the insert of an upload with the arguments args, recording
// what it did in in.
func (in *inserted) run(s *Store, args []any) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		r, err := s.stmts.in(tx, store.SQLInsertUpload).Exec(args...)
		if err != nil {
			return err
		}
		if in.n, err = r.RowsAffected(); err != nil || in.n == 0 {
			return err
		}
		in.seq, err = r.LastInsertId()
		return err
	}
}

// put returns Put's results for u once its insert is committed: u as
// stored, or the upload stored before it, read after the commit (it may
// have been inserted in the same batch).
func (s *Store) put(ctx context.Context, u *store.Upload, in inserted, err error) (store.Upload, bool, error) {
	if err != nil {
		return store.Upload{}, false, fmt.Errorf("sqlite: put %s: %w", u.ID, err)
	}
	if in.n == 1 {
		return store.Stored(*u, in.seq), true, nil
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
	err := s.do(ctx, func(tx *sql.Tx) error {
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
	return s.do(ctx, func(tx *sql.Tx) error {
		_, err := s.stmts.in(tx, store.SQLPutAggregate).Exec(group, version, string(doc))
		return err
	})
}

// Hit implements store.Store.
func (s *Store) Hit(ctx context.Context, key string, window int64) (int64, error) {
	var n int64
	err := s.do(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = s.hit(tx, key, window)
		return err
	})
	return n, err
}

// hit counts one event against key in the window, in tx.
func (s *Store) hit(tx *sql.Tx, key string, window int64) (int64, error) {
	var n int64
	err := s.stmts.in(tx, store.SQLHit).QueryRow(key, window).Scan(&n)
	return n, err
}

// HitCount implements store.Store: a read, beside the writer.
func (s *Store) HitCount(ctx context.Context, key string, window int64) (int64, error) {
	st, err := s.stmts.reader(ctx, s.read, store.SQLHitCount)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := st.QueryRowContext(ctx, key, window).Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return n, nil
}

// Sweep implements store.Store.
func (s *Store) Sweep(ctx context.Context, before int64) error {
	return s.do(ctx, func(tx *sql.Tx) error {
		_, err := s.stmts.in(tx, store.SQLSweep).Exec(before)
		return err
	})
}

// Setting implements store.Store.
func (s *Store) Setting(ctx context.Context, name, proposed string) (string, error) {
	err := s.do(ctx, func(tx *sql.Tx) error {
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
