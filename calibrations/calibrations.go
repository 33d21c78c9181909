// Package calibrations holds the measured calibration table: one JSON file
// per GPU + driver + platform, compiled into the binary, typed as
// planner.Calibration and validated.
//
// Files are named after their id and kept in canonical form (two-space
// indented, as encoding/json writes them), so a diff of an upload against
// the table is a diff of facts, not of formatting. The files are the
// table's source; table.go holds the same entries as Go values, written by
// go generate ./calibrations, so that a program gets the table without
// decoding it (a Cloudflare Worker starts a fresh instance for each
// request). The package's tests fail while table.go is stale, and parse
// and validate every file as Parse does.
package calibrations

//go:generate go run ./internal/gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vramplan/vramplan/planner"
)

var (
	sortOnce sync.Once
	table    []planner.Calibration
)

// All returns every calibration in the table: the measured ones, then the
// community and the estimated ones, each sorted by id. The slice is the
// caller's; the calibrations' own slices are shared with the table and
// must not be modified. The error is always nil: the table was validated
// when it was generated.
func All() ([]planner.Calibration, error) {
	sortOnce.Do(func() { table = sorted(slices.Clone(compiled)) })
	return slices.Clone(table), nil
}

// Lookup returns the calibration of the table that name names, as
// Resolve resolves it: an id in any case, or the card as people name it
// ("h200", "RTX 4090"), its Linux entry first. Otherwise the error, a
// *names.Error, lists the entries it could mean or the nearest ones.
func Lookup(name string) (planner.Calibration, error) {
	all, err := All()
	if err != nil {
		return planner.Calibration{}, err
	}
	c, _, err := Resolve(name, all, nil)
	return c, err
}

// load parses and validates the table's files in fsys, as the tests hold
// the compiled table to.
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
	return sorted(out), nil
}

// sorted sorts cals as All returns them: measured first, then by id.
func sorted(cals []planner.Calibration) []planner.Calibration {
	slices.SortFunc(cals, func(a, b planner.Calibration) int {
		if r := kindRank(&a) - kindRank(&b); r != 0 {
			return r
		}
		return strings.Compare(a.ID, b.ID)
	})
	return cals
}

// MaxSize is the largest calibration document Parse accepts.
const MaxSize = 64 << 10

// Parse decodes and validates one calibration document. Unknown fields are
// an error, so a typo cannot silently drop a measurement, and so is a key
// given twice in one object (a *DuplicateKeyError), whose first value a
// reader of the document would take while a decoder keeps the last.
func Parse(data []byte) (planner.Calibration, error) {
	var c planner.Calibration
	if len(data) > MaxSize {
		return c, fmt.Errorf("calibration is %d bytes, more than %d", len(data), MaxSize)
	}
	if err := decode(data, &c); err != nil {
		return planner.Calibration{}, err
	}
	if err := Validate(&c); err != nil {
		return c, err
	}
	return c, nil
}

// decode is Parse's decoding.
func decode(data []byte, c *planner.Calibration) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("decoding calibration: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("decoding calibration: trailing data after the object")
	}
	// encoding/json matches keys without regard to case, so "gpu" then
	// "GPU" is a key given twice.
	if k, dup := planner.DuplicateKey(bytes.ToLower(data)); dup {
		return &DuplicateKeyError{Key: k}
	}
	return nil
}

// Format returns the canonical encoding of c: json.MarshalIndent's with a
// two-space indent, and a final newline. The table's files are written in
// it, and an upload's id is the SHA-256 of it, so it must never change by a
// byte (calibrations/community's TestDigestPinned pins two). A calibration
// holding a NaN or an infinity, which JSON cannot, and which Validate
// refuses, is formatted as a lone newline.
func Format(c *planner.Calibration) []byte {
	b, _ := json.MarshalIndent(c, "", "  ")
	return append(b, '\n')
}

// A DuplicateKeyError is a document with a key given twice in one object.
type DuplicateKeyError struct {
	Key string // in lowercase
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("%s: appears twice in one object (keys match without regard to case)", e.Key)
}

var (
	// idPattern is an id's letters; its length, 2 to 80, is checked apart
	// (a counted repetition compiles to that many copies, at every start).
	idPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]+$`)
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	platforms   = []string{"linux", "wsl2", "windows"}
)

// kindRank orders the kinds of calibration: measured first.
func kindRank(c *planner.Calibration) int {
	return slices.Index(sources, c.Kind())
}
