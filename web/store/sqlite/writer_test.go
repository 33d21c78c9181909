package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/storetest"
)

func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// commitAll commits runs as one batch, as the writer commits the writes it
// finds waiting, and returns each one's answer. The writer is idle (no
// write was handed to it), so the writing connection is free.
func commitAll(s *Store, runs ...func(*sql.Tx) error) []error {
	ops := make([]*op, len(runs))
	for i, run := range runs {
		ops[i] = &op{run: run, done: make(chan error, 1)}
	}
	s.waiting.Add(int64(len(ops)))
	s.commit(ops)
	errs := make([]error, len(ops))
	for i, o := range ops {
		errs[i] = <-o.done
	}
	return errs
}

// TestBatchDuplicateAndRefused commits, in one transaction, an upload, the
// same upload again, an upload the schema refuses, an upload over its rate
// limit and another upload: the duplicate is answered with the first one's
// id and stored once, the refused statement fails alone, the one over the
// limit is not stored, and the others are stored.
func TestBatchDuplicateAndRefused(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	first, second, third := storetest.Upload(1, "g"), storetest.Upload(2, "g"), storetest.Upload(3, "g")
	bad := storetest.Upload(4, "g")
	bad.Status = "bogus" // the CHECK constraint refuses it
	limit := []store.Limit{{Key: "client:x", Window: 1, Max: 4}}
	as := []*admission{
		s.admission(limit, &first), s.admission(limit, &first), s.admission(limit, &bad),
		s.admission(limit, &third), s.admission(limit, &second),
	}
	runs := make([]func(*sql.Tx) error, len(as))
	for i, a := range as {
		runs[i] = a.run
	}
	before := s.counters.batches.Load()
	errs := commitAll(s, runs...)
	if n := s.counters.batches.Load() - before; n != 1 {
		t.Fatalf("the batch took %d commits, want 1", n)
	}
	var got [5]store.Admission
	for i, a := range as {
		if got[i], errs[i] = a.result(ctx, errs[i]); i != 2 && errs[i] != nil {
			t.Fatalf("admission %d: %v", i, errs[i])
		}
	}
	if !got[0].Created || got[0].Upload.ID != first.ID {
		t.Errorf("first upload: %+v, want it created", got[0])
	}
	if got[1].Created || got[1].Upload.ID != first.ID || got[1].Upload.Seq != got[0].Upload.Seq {
		t.Errorf("its duplicate in the same batch: created %v, id %s seq %d; want the first's id %s seq %d",
			got[1].Created, got[1].Upload.ID, got[1].Upload.Seq, first.ID, got[0].Upload.Seq)
	}
	if errs[2] == nil {
		t.Errorf("an upload with status %q was stored", bad.Status)
	}
	if !got[3].Created || got[3].Over != -1 {
		t.Errorf("the upload after the refused one: %+v, %v; want it created", got[3], errs[3])
	}
	if got[4].Over != 0 || got[4].Created {
		t.Errorf("the fifth upload against a limit of 4: %+v; want it over limit 0 and not stored", got[4])
	}
	if _, err := s.Get(ctx, second.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(the upload over its limit) = %v, want ErrNotFound", err)
	}
	gs, err := s.Groups(ctx)
	if err != nil || len(gs) != 1 || gs[0].Accepted != 2 {
		t.Errorf("Groups() = %+v, %v; want one group of 2 accepted uploads", gs, err)
	}
}

// TestQueueFull fills the writer's queue and checks that the next write is
// refused with store.ErrBusy at once, and that writes go through again once
// the queue drains.
func TestQueueFull(t *testing.T) {
	s, _ := openStore(t)
	s.maxWaiting = 2
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	gate := make(chan error, 1)
	go func() {
		gate <- s.do(ctx, func(*sql.Tx) error { close(started); <-release; return nil })
	}()
	<-started // the writer is inside the gate's batch
	queued := make(chan error, 1)
	go func() {
		_, _, err := s.Put(ctx, storetest.Upload(1, "g"))
		queued <- err
	}()
	for s.waiting.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if _, _, err := s.Put(ctx, storetest.Upload(2, "g")); !errors.Is(err, store.ErrBusy) {
		t.Errorf("Put with the queue full = %v, want store.ErrBusy", err)
	}
	if _, err := s.Admit(ctx, nil, nil); !errors.Is(err, store.ErrBusy) {
		t.Errorf("Admit with the queue full = %v, want store.ErrBusy", err)
	}
	close(release)
	if err := <-gate; err != nil {
		t.Fatal(err)
	}
	if err := <-queued; err != nil {
		t.Fatalf("the write waiting in the queue: %v", err)
	}
	if _, _, err := s.Put(ctx, storetest.Upload(2, "g")); err != nil {
		t.Errorf("Put once the queue drained: %v", err)
	}
	if n := s.waiting.Load(); n != 0 {
		t.Errorf("%d writes counted as waiting after all were answered", n)
	}
	if st := s.Stats(); st.Refused != 2 || st.Writes < 3 || st.Batches < 2 {
		t.Errorf("Stats() = %+v, want 2 refused, and 3 writes or more in 2 batches or more", st)
	}
}

// TestDurable checks the writing connection's modes: WAL, and a commit
// synced before it returns (synchronous=FULL), so that a write answered
// after its commit is on disk.
func TestDurable(t *testing.T) {
	s, _ := openStore(t)
	var mode string
	var sync int
	if err := s.write.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := s.write.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Errorf("synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
}

// TestLogBounded checks that a log written without a pause is started
// again rather than growing: 16 clients store uploads without waiting for
// each other, so the writer's next transaction always begins right after
// its commit. SQLite's own checkpoints (every 1,000 pages, inside the
// commit that passes them) keep it near 4 MiB.
func TestLogBounded(t *testing.T) {
	s, path := openStore(t)
	ctx := context.Background()
	const clients, each = 16, 200
	errs := make(chan error, clients)
	for c := range clients {
		go func() {
			for i := range each {
				if _, _, err := s.Put(ctx, storetest.Upload(c*each+i, "g")); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(3 * 1000 * 4096); fi.Size() > max {
		t.Errorf("the log is %d bytes after %d uploads in %d batches, more than %d: it was not started again",
			fi.Size(), clients*each, s.Stats().Batches, max)
	}
}
