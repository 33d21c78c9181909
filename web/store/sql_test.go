package store_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web/store"
)

func TestStatements(t *testing.T) {
	got := store.Statements(`-- a comment
CREATE TABLE a (x INTEGER);

CREATE TRIGGER t AFTER INSERT ON a
BEGIN
  INSERT INTO b VALUES (1);
  UPDATE b SET y = 2;
END;
CREATE INDEX i ON a (x);
`)
	want := []string{"CREATE TABLE a (x INTEGER)",
		"CREATE TRIGGER t AFTER INSERT ON a\nBEGIN\n  INSERT INTO b VALUES (1);\n  UPDATE b SET y = 2;\nEND",
		"CREATE INDEX i ON a (x)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Statements = %q\nwant %q", got, want)
	}
}

// TestMigrationsIdempotent checks every statement of every migration can
// run twice: each creates only IF NOT EXISTS.
func TestMigrationsIdempotent(t *testing.T) {
	text, err := store.Migrations.ReadFile("migrations/0001_uploads.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range store.Statements(string(text)) {
		if !strings.Contains(s, "IF NOT EXISTS") {
			t.Errorf("statement is not safe to repeat:\n%s", s)
		}
	}
}

func TestUploadsQuery(t *testing.T) {
	q, args := store.SQLUploads(store.Query{After: 5, Limit: 1 << 30, Group: "g", Status: store.StatusHeld, Brief: true})
	if !strings.Contains(q, "group_key = ?") || !strings.Contains(q, "status = ?") || strings.Contains(q, "document") {
		t.Errorf("SQLUploads = %s", q)
	}
	if want := []any{int64(5), "g", "held", int64(store.MaxLimit)}; !reflect.DeepEqual(args, want) {
		t.Errorf("SQLUploads args = %v, want %v", args, want)
	}
}
