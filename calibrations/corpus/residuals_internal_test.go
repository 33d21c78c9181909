package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestCompactTable holds the planner's table, which keeps only the runs'
// own classes and sums the wider ones (planner.RunClass.Residuals), to
// the summaries it is written from, which hold every class at every
// width as the table did before it was compacted. For every class a plan
// can look up (each band, each kind the corpus names and one it does
// not, one GPU or several, each figure), at every width: where a summary
// holds the class, the sum has its runs and range; where none does (a
// wider class of fewer than MinRuns, which no plan quotes), the sum holds
// fewer than MinRuns, and a run's own class none. So every Spread is what
// the uncompacted table gave; every summary is reached.
func TestCompactTable(t *testing.T) {
	sums := summaries(corpusRows(t))
	kinds := append(names(sums, func(s *summary) string { return s.key.Kind }), "dense+swa+vision")
	reached := map[*summary]bool{}
	for band := range planner.ResidualBands {
		for _, kind := range kinds {
			for _, several := range []bool{false, true} {
				for _, f := range []planner.Figure{planner.FigureKVTokens, planner.FigureWeights} {
					c := planner.RunClass{Band: band, Kind: kind, Several: several}
					checkWidths(t, c, f, sums, reached)
				}
			}
		}
	}
	if len(reached) != len(sums) {
		t.Errorf("%d of %d summaries reached by a class a plan looks up", len(reached), len(sums))
	}
}

func checkWidths(t *testing.T, c planner.RunClass, f planner.Figure, sums []*summary, reached map[*summary]bool) {
	t.Helper()
	got := c.Residuals(f)
	for w, k := range c.Keys() {
		i := slices.IndexFunc(sums, func(s *summary) bool { return s.key == k && s.figure == f })
		switch {
		case i >= 0:
			s := sums[i]
			reached[s] = true
			want := planner.Residual{Runs: len(s.samples), Low: int16(perMille(slices.Min(s.samples))), High: int16(perMille(slices.Max(s.samples)))}
			if got[w] != want {
				t.Errorf("%v.Residuals(%s)[%d] (%s) = %+v, want %+v", c, f, w, k, got[w], want)
			}
		case w == 0 && got[w].Runs != 0, got[w].Runs >= planner.MinRuns:
			t.Errorf("%v.Residuals(%s)[%d] (%s) = %+v, want no row", c, f, w, k, got[w])
		}
	}
}

// corpusRows is every corpus entry compared with its plan.
func corpusRows(t *testing.T) []Row {
	t.Helper()
	es, err := Load(os.DirFS(filepath.Join("../..", Dir)))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]Row, len(es))
	for i := range es {
		rows[i] = Compare(&es[i], "../..")
	}
	return rows
}
