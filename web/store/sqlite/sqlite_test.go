package sqlite_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
	"github.com/vramplan/vramplan/web/store/storetest"
)

func open(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "uploads.db"))
	})
}

// TestConformanceSequential runs the suite on the store hidden behind the
// plain store.Store interface, so store.Admit counts and puts one call at a
// time, as it does on D1.
func TestConformanceSequential(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return plain{open(t, filepath.Join(t.TempDir(), "uploads.db"))}
	})
}

// plain is a store.Store and nothing more: not a store.Admitter.
type plain struct{ store.Store }

// TestReopen checks what was written survives closing and reopening the
// file, and that opening an existing file applies no migration twice.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uploads.db")
	s := open(t, path)
	u, _, err := s.Put(context.Background(), storetest.Upload(1, "g"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	got, err := s.Get(context.Background(), u.ID)
	if err != nil || got.Seq != u.Seq {
		t.Fatalf("Get after reopening = %+v, %v; want seq %d", got, err, u.Seq)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	files, _ := fs.Glob(store.Migrations, "migrations/*.sql")
	if err := db.QueryRow(`SELECT count(*) FROM d1_migrations`).Scan(&n); err != nil || n != len(files) {
		t.Errorf("d1_migrations rows = %d, %v; want %d, one per migration applied once", n, err, len(files))
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestMigrateTwice(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 2 {
		if err := store.Migrate(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	// A migration cut short is finished by running it again: drop its
	// record and one of its tables, and migrate.
	if _, err := db.Exec(`DELETE FROM d1_migrations; DROP TABLE hits`); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO hits (hit_key, win, n) VALUES ('k', 1, 1)`); err != nil {
		t.Errorf("hits after re-migrating: %v", err)
	}
}

func TestClosed(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "c.db"))
	s.Close()
	if _, _, err := s.Put(context.Background(), storetest.Upload(1, "g")); err == nil {
		t.Error("Put after Close succeeded")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b.db", filepath.Join(t.TempDir(), "missing-dir", "x.db"), ":memory:"} {
		if s, err := sqlite.Open(p); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		} else if !strings.Contains(err.Error(), "sqlite") {
			t.Errorf("Open(%q) = %v, want an error naming sqlite", p, err)
		}
	}
}
