package sqlite

// This file keeps the key of the client-address hashes out of the
// database. A client is stored as a keyed hash of its address (the web
// app's HMAC), and the addresses are few enough to try them all: with the
// key in the database beside the hashes, anyone who could read the file
// could recover the addresses (the IPv4 space in minutes). So the key lives
// in a file of its own beside the database, "<database>.key", mode 0600,
// and a copy or a backup of the database alone holds hashes that cannot be
// reversed. A database whose key was stored in its settings (before this
// file) has it moved out when it is opened: the key file is written, then
// the setting deleted with SQLite's secure_delete on and the log truncated,
// so no page of either file still holds it, and every stored hash keeps
// its meaning. No upload is touched.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vramplan/vramplan/web/store"
)

// KeyFile returns the path of the client-address key of the database at
// path.
func KeyFile(path string) string { return path + ".key" }

// ClientKey returns the key the web app hashes client addresses with: the
// contents of KeyFile(path), which Open created (or moved out of an older
// database) when there was none. The slice is the caller's.
func (s *Store) ClientKey() []byte { return append([]byte(nil), s.key...) }

// minKey is the shortest key a key file may hold: 128 bits in hex.
const minKey = 32

// clientKey returns the key in the key file of the database at path,
// creating the file when there is none with the key stored in db's
// settings, or a new random one, and then deletes any key db still stores.
func clientKey(path string, db *sql.DB) ([]byte, error) {
	ctx := context.Background()
	var stored string
	err := db.QueryRowContext(ctx, store.SQLSetting, store.SettingClientKey).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	key, err := readKey(KeyFile(path))
	if errors.Is(err, fs.ErrNotExist) {
		if stored == "" {
			var b [32]byte
			rand.Read(b[:]) // crypto/rand.Read never fails
			stored = hex.EncodeToString(b[:])
		}
		key, err = []byte(stored), writeKey(KeyFile(path), stored)
	}
	if err != nil {
		return nil, err
	}
	if stored != "" {
		if err := forgetKey(ctx, db); err != nil {
			return nil, fmt.Errorf("moving the client-address key out of the database: %w", err)
		}
	}
	return key, nil
}

// readKey reads a key file.
func readKey(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(string(data))
	if len(key) < minKey {
		return nil, fmt.Errorf("the client-address key %s holds %d characters, want %d or more", name, len(key), minKey)
	}
	return []byte(key), nil
}

// writeKey writes key to the file name, mode 0600, whole or not at all: a
// temporary file beside it, synced, renamed over it, and the folder synced.
func writeKey(name, key string) error {
	tmp := name + ".tmp"
	os.Remove(tmp) // left by a write cut short
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(key + "\n")
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing the client-address key: %w", err)
	}
	return syncDir(filepath.Dir(name))
}

// syncDir syncs a folder, so that a file renamed into it stays there.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, os.ErrInvalid) { // a platform that cannot sync a folder
		err = nil
	}
	return errors.Join(err, d.Close())
}

// forgetKey deletes the key stored in db's settings so that no page keeps
// it: SQLite's secure_delete overwrites the deleted row, and a truncating
// checkpoint copies the page into the database and empties the log.
func forgetKey(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var secure int
	if err := conn.QueryRowContext(ctx, "PRAGMA secure_delete").Scan(&secure); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = 1"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, store.SQLDeleteSetting, store.SettingClientKey)
	if _, e := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA secure_delete = %d", secure)); err == nil {
		err = e
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return err
}
