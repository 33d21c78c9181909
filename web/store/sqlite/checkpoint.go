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
// bounded.

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
			if log := checkpoint(db, "PASSIVE"); log > maxLogFrames {
				checkpoint(db, "RESTART")
			}
		}
	}
}

// checkpoint runs a checkpoint of the mode and returns the frames in the
// log. A failed checkpoint is left for the next: the log is durable, and a
// checkpoint only moves what it holds.
func checkpoint(db *sql.DB, mode string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, log, done int64
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done); err != nil {
		return 0
	}
	return log
}
