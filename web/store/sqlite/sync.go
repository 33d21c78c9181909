package sqlite

// This file makes commits durable without holding the writer. With
// synchronous=FULL the writing connection fsyncs the log inside every
// commit, and the writer can run nothing while the disk flushes (about a
// millisecond here, several under load): each batch's statements waited
// for the previous batch's fsync. On Linux the writing connection runs
// with synchronous=NORMAL instead, which in WAL mode writes a commit's
// frames to the log without an fsync, and the writer hands each committed
// batch to the syncer, which fsyncs the log itself and only then answers
// the batch's writes. So a write is answered, as with FULL, only once the
// frames of its commit are on disk; the next batch runs while the disk
// flushes; and one fsync covers every batch committed while the last one
// ran. (An fsync writes back all of a file's data whatever descriptor it
// is called on; SQLite recovers a log up to its last whole commit, so the
// frames of a batch not yet synced, lost to a power cut, only lose writes
// not yet answered. SQLite still syncs the log's header when it starts the
// log again, and checkpoints sync the log before they copy it and the
// database after.) Elsewhere the connection keeps synchronous=FULL and
// the syncer only answers.
//
// The writer commits a batch only on the syncer's turn, once the syncer is
// idle: while the disk flushes one batch, the writer runs the next one's
// statements in its open transaction, and commits it when the flush is
// done. So every batch is one commit and one fsync, and a batch is as large
// as the writes that arrived during the last fsync.

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// pipelined reports whether the syncer, not the commit, fsyncs the log.
const pipelined = runtime.GOOS == "linux"

// A committed batch is one the writer committed, with each write's result.
type committed struct {
	ops  []*op
	errs []error
}

// syncer answers the committed batches in order, each once an fsync of the
// log that began after its commit has returned, until the writer closes
// s.syncs. It gives the writer its turn (s.ready) whenever it is idle: the
// writer commits one batch a turn.
func (s *Store) syncer() {
	defer close(s.drained)
	s.ready <- struct{}{}
	for b := range s.syncs {
		t0 := time.Now()
		err := s.syncLog()
		s.counters.syncs.Add(1)
		s.counters.syncing.Add(int64(time.Since(t0)))
		for i, o := range b.ops {
			if b.errs[i] == nil {
				b.errs[i] = err
			}
			s.answer(o, b.errs[i])
		}
		s.ready <- struct{}{}
	}
}

// walLog is the database's log file, which the syncer fsyncs; nil when the
// commits sync it themselves.
type walLog struct {
	path string
	f    *os.File
}

// sync flushes the log to disk (fdatasync). The file is opened again when it is not the one at
// path any more (SQLite removes the log only once it is copied into the
// database, so the data of a replaced log is on disk already).
func (l *walLog) sync() error {
	if l == nil {
		return nil
	}
	fi, err := os.Stat(l.path)
	if err != nil {
		return fmt.Errorf("sqlite: syncing the log: %w", err)
	}
	if l.f != nil {
		if cur, err := l.f.Stat(); err != nil || !os.SameFile(cur, fi) {
			l.f.Close()
			l.f = nil
		}
	}
	if l.f == nil {
		if l.f, err = os.OpenFile(l.path, os.O_RDWR, 0); err != nil {
			return fmt.Errorf("sqlite: syncing the log: %w", err)
		}
	}
	if err := datasync(l.f); err != nil {
		return fmt.Errorf("sqlite: syncing the log %s: %w", l.path, err)
	}
	return nil
}

func (l *walLog) close() error {
	if l == nil || l.f == nil {
		return nil
	}
	return l.f.Close()
}
