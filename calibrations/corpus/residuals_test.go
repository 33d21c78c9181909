package corpus_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
)

var update = flag.Bool("update", false, "rewrite the residual table in docs/engine-results.md")

// root is the repository root from this package.
const root = "../.."

// The generated region of docs/engine-results.md.
const (
	results    = "docs/engine-results.md"
	beginTable = "<!-- corpus residuals: written by `go test ./calibrations/corpus -update`; do not edit by hand -->\n"
	endTable   = "<!-- end of corpus residuals -->\n"
)

func load(t *testing.T) []corpus.Entry {
	t.Helper()
	es, err := corpus.Load(os.DirFS(filepath.Join(root, corpus.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestResiduals plans every corpus entry with the profiles as they are
// and holds the residual table in docs/engine-results.md and the
// per-class summary the planner quotes (planner/residuals_gen.go) to the
// result: a new entry or a changed rule changes them, and -update
// rewrites both for review.
func TestResiduals(t *testing.T) {
	es := load(t)
	rows := make([]corpus.Row, len(es))
	for i := range es {
		rows[i] = corpus.Compare(&es[i], root)
	}
	gen, err := corpus.Generated(rows)
	if err != nil {
		t.Fatal(err)
	}
	hold(t, corpus.GeneratedFile, func(string) (string, error) { return string(gen), nil })
	table := corpus.Table(rows)
	hold(t, results, func(doc string) (string, error) {
		before, rest, ok1 := strings.Cut(doc, beginTable)
		_, after, ok2 := strings.Cut(rest, endTable)
		if !ok1 || !ok2 {
			return "", fmt.Errorf("%s holds no region between %q and %q", results, beginTable, endTable)
		}
		return before + beginTable + table + endTable + after, nil
	})
}

// hold holds the file at path (from the repository root) to what want
// makes of it, rewriting it under -update.
func hold(t *testing.T, path string, want func(old string) (string, error)) {
	t.Helper()
	path = filepath.Join(root, path)
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := want(string(old))
	if err != nil {
		t.Fatal(err)
	}
	if doc == string(old) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: the corpus's residuals moved; run go test ./calibrations/corpus -update and review the diff", path)
}
