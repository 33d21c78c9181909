// Package calibrations holds the measured calibration table: one JSON file
// per GPU + driver + platform, embedded in the binary, typed as
// planner.Calibration and validated.
//
// Files are named after their id and kept in canonical form (two-space
// indented, as encoding/json writes them), so a diff of an upload against
// the table is a diff of facts, not of formatting.
package calibrations

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vramplan/vramplan/planner"
)

//go:embed *.json
var files embed.FS

var (
	loadOnce sync.Once
	table    []planner.Calibration
	loadErr  error
)

// All returns every calibration in the table, sorted by id.
func All() ([]planner.Calibration, error) {
	loadOnce.Do(func() { table, loadErr = load(files) })
	return slices.Clone(table), loadErr
}

// Lookup returns the calibration whose id is name, or the only one whose id
// starts with name ("rtx5090" for "rtx5090-wsl2-cuda13.3").
func Lookup(name string) (planner.Calibration, error) {
	all, err := All()
	if err != nil {
		return planner.Calibration{}, err
	}
	var matches []planner.Calibration
	for _, c := range all {
		if c.ID == name {
			return c, nil
		}
		if strings.HasPrefix(c.ID, name) {
			matches = append(matches, c)
		}
	}
	return pick(name, matches, all)
}

func pick(name string, matches, all []planner.Calibration) (planner.Calibration, error) {
	ids := func(cs []planner.Calibration) string {
		s := make([]string, len(cs))
		for i, c := range cs {
			s[i] = c.ID
		}
		return strings.Join(s, ", ")
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return planner.Calibration{}, fmt.Errorf("no calibration %q (have %s)", name, ids(all))
	}
	return planner.Calibration{}, fmt.Errorf("calibration %q is ambiguous: %s", name, ids(matches))
}

func load(fsys fs.FS) ([]planner.Calibration, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	out := make([]planner.Calibration, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		c, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if c.ID+".json" != n {
			return nil, fmt.Errorf("%s: id %q does not match the file name", n, c.ID)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b planner.Calibration) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// MaxSize is the largest calibration document Parse accepts.
const MaxSize = 64 << 10

// Parse decodes and validates one calibration document. Unknown fields are
// an error, so a typo cannot silently drop a measurement.
func Parse(data []byte) (planner.Calibration, error) {
	var c planner.Calibration
	if len(data) > MaxSize {
		return c, fmt.Errorf("calibration is %d bytes, more than %d", len(data), MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("decoding calibration: %w", err)
	}
	if dec.More() {
		return c, fmt.Errorf("decoding calibration: trailing data after the object")
	}
	return c, Validate(&c)
}

// Format returns the canonical encoding of c.
func Format(c *planner.Calibration) []byte {
	b, _ := json.MarshalIndent(c, "", "  ") // a Calibration always marshals
	return append(b, '\n')
}

var (
	idPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]{1,79}$`)
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	platforms   = []string{"linux", "wsl2", "windows"}
)
