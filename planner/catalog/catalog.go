// Package catalog holds the shapes of popular open models, compiled in, so
// that a plan can start from a name.
//
// Every entry is generated, not typed: internal/gen computes it from a real
// config.json checked in under planner/hf/testdata/configs and the weight
// format spec.json names for it, and writes it twice: models/*.json, the
// form to review and to read from other tools, and models.go, the same
// models as Go values, so that a program gets the catalog without decoding
// anything (a Cloudflare Worker starts a fresh instance for each request).
// Run go generate ./planner/catalog after changing either input; a test
// fails while the files are stale. The package imports the standard
// library only.
package catalog

//go:generate go run ./internal/gen

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// All returns every catalog model, sorted by ID. The slice is the
// caller's; the models' own slices and pointers are shared with the
// catalog and must not be modified.
func All() ([]planner.Model, error) {
	out := slices.Clone(models)
	vs := variants()
	for i := range out {
		out[i].Variants = vs[i]
	}
	return out, nil
}

// IDs returns the catalog's model IDs, sorted.
func IDs() []string {
	out := make([]string, len(models))
	for i := range models {
		out[i] = models[i].ID
	}
	return out
}

// Lookup returns the model whose ID is id, or the only one it is a prefix
// of, ignoring case (names.Resolve). Otherwise the error, a *names.Error,
// lists the IDs it could mean or the closest ones. The model shares its
// slices and pointers with the catalog, as All's do.
func Lookup(id string) (planner.Model, error) {
	got, err := names.Resolve("model", id, IDs())
	if err != nil {
		return planner.Model{}, err
	}
	i, _ := slices.BinarySearchFunc(models, got, func(m planner.Model, id string) int { return strings.Compare(m.ID, id) })
	m := models[i]
	m.Variants = variants()[i]
	return m, nil
}

// variants returns, for each model (by index), the catalog's other weight
// formats of the same shape (same layers, widths, vocabulary, experts and
// attention): a config.json published in BF16 and in FP8, or quantized to
// Q8_0 and Q4_K_M. It is computed once; the slices are shared.
var variants = sync.OnceValue(func() [][]planner.Variant {
	out := make([][]planner.Variant, len(models))
	for i := range models {
		for j := range models {
			if i != j && sameShape(&models[i], &models[j]) {
				o := &models[j]
				out[i] = append(out[i], planner.Variant{ID: o.ID, Name: o.Name, Weights: o.Weights})
			}
		}
	}
	return out
})

// sameShape reports whether a and b are one model in two weight formats:
// equal in everything but the names, the source, the weights and the
// vision tower.
func sameShape(a, b *planner.Model) bool {
	if a.Arch != b.Arch || a.HiddenSize != b.HiddenSize || a.VocabSize != b.VocabSize || len(a.Layers) != len(b.Layers) {
		return false
	}
	x, y := *a, *b
	for _, m := range []*planner.Model{&x, &y} {
		m.ID, m.Name, m.Source, m.Weights, m.Vision, m.Variants = "", "", "", planner.Weights{}, nil, nil
	}
	return reflect.DeepEqual(x, y)
}
