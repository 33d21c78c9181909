// Package interimcatalog serves the model shapes of the planner's golden
// inputs as a catalog until the real one (planner/catalog, built on another
// branch) lands. Its files are the "model" member of each
// planner/testdata/golden/*.input.json, copied verbatim.
//
// It exists only so the web calculator has models to offer; the lead
// replaces web.Deps.Models = interimcatalog.All with the catalog's All.
package interimcatalog

import (
	"embed"
	"io/fs"
	"slices"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

//go:embed models/*.json
var files embed.FS

// All returns the interim catalog's models, sorted by id. It panics if an
// embedded file is not a valid model shape, which a test rules out.
func All() []planner.Model {
	names, _ := fs.Glob(files, "models/*.json")
	out := make([]planner.Model, 0, len(names))
	for _, n := range names {
		data, _ := files.ReadFile(n)
		m, err := planner.ParseModel(data)
		if err != nil {
			panic("interimcatalog: " + n + ": " + err.Error())
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b planner.Model) int { return strings.Compare(a.ID, b.ID) })
	return out
}
