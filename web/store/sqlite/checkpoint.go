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

import (
	"context"
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer looks for new commits.
const checkpointEvery = 100 * time.Millisecond

// maxLogFrames bounds the log: 16,384 pages of 4 KiB, 64 MiB.
const maxLogFrames = 16384

// checkpointer checkpoints on db until s.closed, then once more.
func (s *Store) checkpointer(db *sql.DB) {
	defer close(s.checkpointed)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var seen int64
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
	checkpoint(s.write, "PASSIVE")
}

// restartFrames is the log's length at which the writer lets the log
// start again: 2,048 pages of 4 KiB, 8 MiB (about 300 uploads).
const restartFrames = 2048

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
