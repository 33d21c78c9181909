package main

import (
	"bytes"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// TestServeKeyOutOfDatabase checks that `vramplan serve` hashes client
// addresses with the key file beside its database, which only the owner
// can read, and stores no key in the database.
func TestServeKeyOutOfDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	db := filepath.Join(t.TempDir(), "uploads.db")
	cmd, url := startServer(t, db)
	resp, err := http.Post(url+"/api/uploads", "application/json", bytes.NewReader(uploadDoc(t, 1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/uploads = %d", resp.StatusCode)
	}
	for _, name := range []string{db, sqlite.KeyFile(db)} {
		if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want mode 0600", filepath.Base(name), fi.Mode(), err)
		}
	}
	raw, err := sql.Open("sqlite", db) // not sqlite.Open, which would move a stored key out
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM settings WHERE name = ?`, store.SettingClientKey).Scan(&n); err != nil || n != 0 {
		t.Errorf("the database holds %d settings %s (%v), want none", n, store.SettingClientKey, err)
	}
}
