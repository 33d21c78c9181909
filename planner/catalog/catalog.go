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
	"slices"
	"strings"

	"github.com/vramplan/vramplan/planner"
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
// of, ignoring case. Otherwise the error lists the closest IDs.
func Lookup(id string) (planner.Model, error) {
	q := strings.ToLower(strings.TrimSpace(id))
	ids := IDs()
	if slices.Contains(ids, q) {
		return load(q + ".json")
	}
	var matches []string
	for _, x := range ids {
		if strings.HasPrefix(x, q) {
			matches = append(matches, x)
		}
	}
	switch {
	case len(matches) == 1 && q != "":
		return load(matches[0] + ".json")
	case len(matches) > 1 && q != "":
		return planner.Model{}, fmt.Errorf("model %q is ambiguous: it could be %s", id, strings.Join(matches, ", "))
	}
	return planner.Model{}, fmt.Errorf("no model %q in the catalog; closest: %s", id, strings.Join(closest(q, ids, 5), ", "))
}

// closest returns up to n IDs nearest to q by edit distance, nearest first.
func closest(q string, ids []string, n int) []string {
	type scored struct {
		id string
		d  int
	}
	var s []scored
	for _, x := range ids {
		d := distance(q, x)
		if strings.Contains(x, q) && q != "" {
			d = 0
		}
		s = append(s, scored{x, d})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, n)
	for i := 0; i < len(s) && i < n; i++ {
		out = append(out, s[i].id)
	}
	return out
}

// distance is the Levenshtein distance between a and b (a capped at 64 bytes).
func distance(a, b string) int {
	a = a[:min(len(a), 64)]
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
