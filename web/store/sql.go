package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Migrations holds the schema as numbered SQL files (0001_uploads.sql, …)
// in the layout `wrangler d1 migrations apply` reads.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// The statements every SQL implementation runs, with ? placeholders in the
// order their Args helpers give. Each write is a single statement.
const (
	// SQLInsertUpload stores an upload unless its id or digest is stored
	// (the conflict is answered by reading the stored one).
	SQLInsertUpload = `INSERT INTO uploads (id, digest, group_key, status, reasons, created, client, token_hash, figures, document)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	// SQLUploadColumns are the columns ScanUpload reads, in its order.
	SQLUploadColumns = `seq, id, digest, group_key, status, reasons, created, client, token_hash, figures, document`
	// SQLBriefColumns are those of a brief query: the document is empty.
	SQLBriefColumns = `seq, id, digest, group_key, status, reasons, created, client, token_hash, figures, ''`
	// SQLUploadByID reads one upload.
	SQLUploadByID = `SELECT ` + SQLUploadColumns + ` FROM uploads WHERE id = ?`
	// SQLUploadConflict reads the upload an insert conflicted with, by the
	// new upload's id and digest.
	SQLUploadConflict = `SELECT ` + SQLUploadColumns + ` FROM uploads WHERE id = ? OR digest = ? ORDER BY seq LIMIT 1`
	// SQLDeleteUpload deletes an upload when the token hash matches.
	SQLDeleteUpload = `DELETE FROM uploads WHERE id = ? AND token_hash = ?`
	// SQLGroups lists the groups and their cached aggregates.
	SQLGroups = `SELECT g.group_key, g.version, g.accepted, g.held, a.version, a.document
FROM upload_groups g LEFT JOIN aggregates a ON a.group_key = g.group_key
WHERE g.accepted + g.held > 0 ORDER BY g.group_key`
	// SQLPutAggregate caches an aggregate unless a newer one is cached.
	SQLPutAggregate = `INSERT INTO aggregates (group_key, version, document) VALUES (?, ?, ?)
ON CONFLICT (group_key) DO UPDATE SET version = excluded.version, document = excluded.document
WHERE excluded.version > aggregates.version`
	// SQLHit counts one event and returns the window's count.
	SQLHit = `INSERT INTO hits (hit_key, win, n) VALUES (?, ?, 1)
ON CONFLICT (hit_key, win) DO UPDATE SET n = n + 1 RETURNING n`
	// SQLHitCount reads a window's count without counting.
	SQLHitCount = `SELECT n FROM hits WHERE hit_key = ? AND win = ?`
	// SQLSweep forgets old windows.
	SQLSweep = `DELETE FROM hits WHERE win < ?`
	// SQLInsertSetting stores a setting unless one is stored; SQLSetting
	// reads it, SQLDeleteSetting deletes it.
	SQLInsertSetting = `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING`
	SQLSetting       = `SELECT value FROM settings WHERE name = ?`
	SQLDeleteSetting = `DELETE FROM settings WHERE name = ?`
)

// SettingClientKey names the setting that holds the key of the
// client-address hashes in a store that has nowhere else to keep it (a
// worker without the secret): web/store/sqlite keeps it in a file beside
// the database and moves it out of an older database's settings.
const SettingClientKey = "client-address-salt"

// SQLUploads returns the statement and arguments that select q's uploads.
func SQLUploads(q Query) (string, []any) {
	cols := SQLUploadColumns
	if q.Brief {
		cols = SQLBriefColumns
	}
	var b strings.Builder
	b.WriteString("SELECT " + cols + " FROM uploads WHERE seq > ?")
	args := []any{q.After}
	if q.Group != "" {
		b.WriteString(" AND group_key = ?")
		args = append(args, q.Group)
	}
	if q.Status != "" {
		b.WriteString(" AND status = ?")
		args = append(args, string(q.Status))
	}
	b.WriteString(" ORDER BY seq LIMIT ?")
	return b.String(), append(args, int64(q.limit()))
}

func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// InsertArgs returns SQLInsertUpload's arguments for u.
func InsertArgs(u *Upload) []any {
	reasons := "[]" // what json.Marshal writes for none, the common case
	if len(u.Reasons) > 0 {
		b, _ := json.Marshal(u.Reasons) // []string always marshals
		reasons = string(b)
	}
	figures, ok := figuresColumn(u.Figures)
	if !ok || u.Figures == nil {
		figures = "{}" // a NaN figure is refused before it gets here
	}
	return []any{u.ID, u.Digest, u.Group, string(u.Status), reasons, u.Created.Unix(),
		u.Client, u.TokenHash, figures, string(u.Document)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Scanner is *sql.Row or *sql.Rows.
type Scanner interface{ Scan(dest ...any) error }

// ScanUpload reads one row of SQLUploadColumns.
func ScanUpload(s Scanner) (Upload, error) {
	var u Upload
	var status, reasons, figures, doc string
	var created int64
	err := s.Scan(&u.Seq, &u.ID, &u.Digest, &u.Group, &status, &reasons, &created, &u.Client, &u.TokenHash, &figures, &doc)
	if err != nil {
		return u, err
	}
	u.Status, u.Created = Status(status), time.Unix(created, 0).UTC()
	if doc != "" {
		u.Document = []byte(doc)
	}
	if reasons != "[]" { // what InsertArgs writes for none, the common case
		if err := json.Unmarshal([]byte(reasons), &u.Reasons); err != nil {
			return u, fmt.Errorf("store: upload %s: reasons: %w", u.ID, err)
		}
	}
	if len(u.Reasons) == 0 {
		u.Reasons = nil
	}
	if u.Figures, err = readFigures(figures); err != nil {
		return u, fmt.Errorf("store: upload %s: figures: %w", u.ID, err)
	}
	if len(u.Figures) == 0 {
		u.Figures = nil
	}
	return u, nil
}

// ScanGroup reads one row of SQLGroups.
func ScanGroup(s Scanner) (Group, error) {
	var g Group
	var aggVersion sql.NullInt64
	var agg sql.NullString
	if err := s.Scan(&g.Key, &g.Version, &g.Accepted, &g.Held, &aggVersion, &agg); err != nil {
		return g, err
	}
	if agg.Valid {
		g.Aggregate, g.AggregateVersion = []byte(agg.String), aggVersion.Int64
	}
	return g, nil
}

// CollectUploads reads every row of SQLUploadColumns that a query
// returned: store.CollectUploads(db.QueryContext(…)). It closes rows.
func CollectUploads(rows *sql.Rows, err error) ([]Upload, error) {
	return collect(rows, err, ScanUpload)
}

// CollectGroups reads every row of SQLGroups, as CollectUploads does.
func CollectGroups(rows *sql.Rows, err error) ([]Group, error) {
	return collect(rows, err, ScanGroup)
}

func collect[T any](rows *sql.Rows, err error, scan func(Scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Found returns u and err of a read by id, with sql.ErrNoRows as
// ErrNotFound: store.Found(store.ScanUpload(row)).
func Found[T any](u T, err error) (T, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return u, ErrNotFound
	}
	return u, err
}

// Stored returns u as a read returns it once SQLInsertUpload has stored it
// at seq: its time to the second, and empty lists and documents nil.
func Stored(u Upload, seq int64) Upload {
	u.Seq, u.Created = seq, time.Unix(u.Created.Unix(), 0).UTC()
	if len(u.Reasons) == 0 {
		u.Reasons = nil
	}
	if len(u.Figures) == 0 {
		u.Figures = nil
	}
	if len(u.Document) == 0 {
		u.Document = nil
	}
	return u
}

// NotDeleted returns why SQLDeleteUpload deleted nothing, given the
// upload's Get: ErrNotFound when there is no such upload, ErrToken when
// the token hash was wrong.
func NotDeleted[T any](_ T, err error) error {
	if err != nil {
		return err
	}
	return ErrToken
}

// Execer is what Migrate needs of a database: *sql.DB and *sql.Conn have it.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// migrationsTable is the table wrangler keeps its applied migrations in;
// using the same one lets a database move between the two.
const migrationsTable = `CREATE TABLE IF NOT EXISTS d1_migrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`

// Migrate applies the migrations db has not recorded, in name order, one
// statement at a time (D1 prepares one statement per call). Every statement
// is idempotent, so Migrate may be run concurrently and again after an
// interruption.
func Migrate(ctx context.Context, db Execer) error {
	if _, err := db.ExecContext(ctx, migrationsTable); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	done, err := applied(ctx, db)
	if err != nil {
		return err
	}
	names, err := fs.Glob(Migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		if done[name] {
			continue
		}
		if err := apply(ctx, db, path, name); err != nil {
			return err
		}
	}
	return nil
}

func applied(ctx context.Context, db Execer) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM d1_migrations`)
	if err != nil {
		return nil, fmt.Errorf("store: reading applied migrations: %w", err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		done[n] = true
	}
	return done, rows.Err()
}

func apply(ctx context.Context, db Execer, path, name string) error {
	text, err := Migrations.ReadFile(path)
	if err != nil {
		return err
	}
	for _, stmt := range Statements(string(text)) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("store: migration %s: %w\n%s", name, err, stmt)
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO d1_migrations (name) VALUES (?) ON CONFLICT DO NOTHING`, name)
	return err
}

// Statements splits a migration file into its statements: each ends with a
// semicolon at the end of a line, except inside a trigger's BEGIN … END.
// Comment lines are dropped.
func Statements(text string) []string {
	var out []string
	var cur []string
	inTrigger := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur = append(cur, line)
		upper := strings.ToUpper(t)
		if strings.HasPrefix(upper, "CREATE TRIGGER") {
			inTrigger = true
		}
		end := strings.HasSuffix(t, ";") && (!inTrigger || upper == "END;")
		if end {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";"))
			cur, inTrigger = nil, false
		}
	}
	return out
}
