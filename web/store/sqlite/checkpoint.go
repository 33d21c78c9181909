package sqlite

// This file keeps SQLite's checkpoints off the writer. A WAL database
// copies its log back into the database file from time to time (a
// checkpoint). By default the connection whose commit takes the log past
// 1,000 pages does it inside that commit, so every write waiting behind it
// waits for the copy and the database file's fsync as well: tens of
// milliseconds, the tail of the uploads' latency. Here the writing
// connection has automatic checkpoints off (wal_autocheckpoint=0) and a
// goroutine checkpoints on a connection of its own: PASSIVE, which never
// waits for the writer or a reader and never blocks them, every
// checkpointEvery while there were commits. Only a log that readers kept
// from being reset past maxLogFrames is checkpointed RESTART, which does
// wait for them and holds the writer while it copies, so the file stays
// bounded. SQLite starts a log again from its beginning only when a write
// transaction begins with the log copied whole, which under a steady
// stream of commits never happens by itself: the writer's next transaction
// begins right after its commit, before the checkpointer has copied it.
// So once the log has passed restartFrames and the checkpointer has copied
// it, the writer copies its last commits itself between two transactions
// (restartLog), and its next commit starts the log again; before, the log
// grew to maxLogFrames and its RESTART held the writer for 50–75 ms every
// few seconds, the tail of the uploads' latency.
//
// The writer's checkpoint syncs the database file (SQLite syncs it after a
// checkpoint that copied the whole log), and that sync writes back every
// page the checkpointer copied since the last one: the checkpointer's own
// passes copy a log the writer keeps growing, so SQLite never syncs it
// after them (it syncs the file only when no commit came during the pass).
// That write-back was most of the writer's stall, and it grows with the
// log. So after each pass that copied pages the checkpointer starts their
// write-back itself (writeBack: on Linux sync_file_range, which queues the
// writes and neither waits for them nor flushes the disk's cache), the
// writer's sync finds little left to write, and the log starts again only
// every restartFrames (32 MiB): a quarter as many stalls, each about as
// long as one of the 8 MiB log's was (docs/benchmarks.md, session 9).
// Durability is SQLite's, unchanged: writeBack only starts writes that
// SQLite's syncs wait for later.

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// checkpointEvery is how often the checkpointer looks for new commits.
const checkpointEvery = 100 * time.Millisecond

// maxLogFrames bounds the log: 32,768 pages of 4 KiB, 128 MiB.
const maxLogFrames = 32768

// checkpointer checkpoints on db until s.closed, then once more, and
// starts the write-back of what each pass copied into dbFile (nil: none).
func (s *Store) checkpointer(db *sql.DB, dbFile *os.File) {
	defer close(s.checkpointed)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var seen, copied int64
	for {
		select {
		case <-t.C:
		case <-s.drained:
			checkpoint(db, "PASSIVE")
			return
		}
		if n := s.counters.batches.Load(); n != seen {
			seen = n
			log, done := checkpoint(db, "PASSIVE")
			if done != copied && dbFile != nil {
				writeBack(dbFile) // a failure only leaves the writes to the sync
			}
			copied = done
			s.restartDue.Store(log >= restartFrames && done == log)
			if log > maxLogFrames {
				checkpoint(db, "RESTART")
			}
		}
	}
}

// restartLog lets the writer's next commit start the log again from its
// beginning when the checkpointer has copied a log of restartFrames or
// more: on the writer's connection, between two of its transactions, it
// checkpoints PASSIVE the frames committed since (SQLite syncs the log
// before it copies and the database after), so that the log is copied
// whole when the next transaction begins. It runs on the writer's
// goroutine only, after a commit, at most once per run of the
// checkpointer; one that readers keep from copying everything is left for
// the next.
func (s *Store) restartLog() {
	if !s.restartDue.Swap(false) {
		return
	}
	t0 := time.Now()
	checkpoint(s.write, "PASSIVE")
	s.counters.restarts.Add(1)
	s.counters.restarting.Add(int64(time.Since(t0)))
}

// restartFrames is the log's length at which the writer lets the log
// start again: 8,192 pages of 4 KiB, 32 MiB (about 2,000 uploads).
const restartFrames = 8192

// checkpoint runs a checkpoint of the mode and returns the frames in the
// log and those of them copied into the database. A failed checkpoint is
// left for the next: the log is durable, and a checkpoint only moves what
// it holds.
func checkpoint(db *sql.DB, mode string) (log, done int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy int64
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done); err != nil {
		return 0, 0
	}
	return log, done
}
