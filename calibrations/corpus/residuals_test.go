package corpus_test

import (
	"flag"
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
// and holds the residual table in docs/engine-results.md to the result:
// a new entry or a changed rule changes the table, and -update rewrites
// it for review.
func TestResiduals(t *testing.T) {
	es := load(t)
	rows := make([]corpus.Row, len(es))
	for i := range es {
		rows[i] = corpus.Compare(&es[i], root)
	}
	table := corpus.Table(rows)
	path := filepath.Join(root, results)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), beginTable)
	old, after, ok2 := strings.Cut(rest, endTable)
	if !ok1 || !ok2 {
		t.Fatalf("%s holds no region between %q and %q", results, beginTable, endTable)
	}
	if old == table {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+beginTable+table+endTable+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the residual table in %s is stale; run go test ./calibrations/corpus -update and review the diff", results)
}
