// Package catalog holds the shapes of popular open models, embedded, so
// that a plan can start from a name.
//
// Every entry is generated, not typed: internal/gen computes it from a real
// config.json checked in under planner/hf/testdata/configs and the weight
// format spec.json names for it. Run go generate ./planner/catalog after
// changing either; a test fails while the files are stale. The package
// imports the standard library only.
package catalog

//go:generate go run ./internal/gen

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

//go:embed models/*.json
var files embed.FS

// All returns every catalog model, sorted by ID.
func All() ([]planner.Model, error) {
	entries, err := files.ReadDir("models")
	if err != nil {
		return nil, err
	}
	out := make([]planner.Model, 0, len(entries))
	for _, e := range entries {
		m, err := load(e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func load(name string) (planner.Model, error) {
	var m planner.Model
	data, err := files.ReadFile("models/" + name)
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		return m, fmt.Errorf("catalog %s: %w", name, err)
	}
	return m, nil
}

// IDs returns the catalog's model IDs, sorted.
func IDs() []string {
	entries, _ := files.ReadDir("models")
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = strings.TrimSuffix(e.Name(), ".json")
	}
	return out
}

// Lookup returns the model whose ID is id, or the only one it is a prefix
// of, ignoring case (names.Resolve). Otherwise the error, a *names.Error,
// lists the IDs it could mean or the closest ones.
func Lookup(id string) (planner.Model, error) {
	got, err := names.Resolve("model", id, IDs())
	if err != nil {
		return planner.Model{}, err
	}
	return load(got + ".json")
}
