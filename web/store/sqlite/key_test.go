package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
	"github.com/vramplan/vramplan/web/store/storetest"
)

// mode returns the permissions of the file name.
func mode(t *testing.T, name string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestOwnerOnly checks that a new database, its log, its shared memory and
// its key file are the owner's alone, whatever the umask, and that opening
// a database created readable by others takes their permissions off.
func TestOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "uploads.db")
	s := open(t, path)
	if _, _, err := s.Put(context.Background(), storetest.Upload(1, "g")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm", sqlite.KeyFile(path)} {
		if m := mode(t, name); m != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(name), m)
		}
	}
	s.Close()
	// A database another program made, readable by all, with its log and
	// shared memory open.
	old := filepath.Join(dir, "old.db")
	raw, err := sql.Open("sqlite", old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE x (a)`); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{old, old + "-wal", old + "-shm"} {
		if err := os.Chmod(name, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s = open(t, old)
	defer s.Close()
	for _, name := range []string{old, old + "-wal", old + "-shm"} {
		if m := mode(t, name); m != 0o600 {
			t.Errorf("%s, mode 0644 before Open: mode %v, want 0600", filepath.Base(name), m)
		}
	}
}

// TestClientKeyFile checks that the client-address key is in its file
// beside the database and not in the database, and is the same key when
// the database is opened again.
func TestClientKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uploads.db")
	s := open(t, path)
	key := s.ClientKey()
	s.Close()
	if len(key) < 32 {
		t.Fatalf("ClientKey() = %q, want 32 characters or more", key)
	}
	file, err := os.ReadFile(sqlite.KeyFile(path))
	if err != nil || !bytes.Equal(bytes.TrimSpace(file), key) {
		t.Errorf("the key file holds %q, %v; want %q", file, err, key)
	}
	if n := settings(t, path); n != 0 {
		t.Errorf("the database holds %d settings named %q, want none", n, store.SettingClientKey)
	}
	s = open(t, path)
	defer s.Close()
	if again := s.ClientKey(); !bytes.Equal(again, key) {
		t.Errorf("ClientKey() after reopening = %q, want %q", again, key)
	}
}

// TestClientKeyMoved opens a database that holds its client-address key in
// its settings, as every database did before the key file: the key moves
// to the file unchanged, so every stored hash keeps its meaning; no page of
// the database or its log holds it any more; every upload is still there.
func TestClientKeyMoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uploads.db")
	const salt = "5a1f0e6d4c3b2a190817f6e5d4c3b2a1ffeeddccbbaa99887766554433221100"
	s := open(t, path)
	var want []store.Upload
	for i := range 50 {
		u, _, err := s.Put(context.Background(), storetest.Upload(i, "g"))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, u)
	}
	s.Close()
	os.Remove(sqlite.KeyFile(path))
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(store.SQLInsertSetting, store.SettingClientKey, salt); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = open(t, path)
	if key := s.ClientKey(); string(key) != salt {
		t.Errorf("ClientKey() = %q, want the stored salt %q", key, salt)
	}
	got, err := s.Uploads(context.Background(), store.Query{})
	if err != nil || len(got) != len(want) {
		t.Fatalf("Uploads() after the move = %d uploads, %v; want %d", len(got), err, len(want))
	}
	s.Close()
	if n := settings(t, path); n != 0 {
		t.Errorf("the database still holds %d settings named %q", n, store.SettingClientKey)
	}
	for _, name := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(salt)) {
			t.Errorf("%s still holds the key's bytes", filepath.Base(name))
		}
	}
}

// settings counts the client-key settings stored in the database at path.
func settings(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM settings WHERE name = ?`, store.SettingClientKey).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
