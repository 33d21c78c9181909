//go:build !stdjson

package store

// This file writes and reads an upload's figures column without
// encoding/json. The column is json.Marshal of a map of figure names to
// numbers: every upload writes one, and the background refresh of a group
// reads every upload's, and doing either by reflection was most of its
// cost (a sorted-key map encoded by reflection was a twelfth of an
// upload's CPU). figuresColumn writes exactly the bytes json.Marshal
// writes (keys sorted bytewise, escaped and floats formatted as
// encoding/json does, by jsonlite's AppendString and AppendFloat);
// readFigures reads the column as figuresColumn writes it and leaves
// anything else to json.Unmarshal, which gives the same map or the error.
// figures_test.go holds both to encoding/json under fuzzing. The worker's
// build does both by encoding/json alone (figures_stdjson.go): it links
// encoding/json anyway and not jsonlite.

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/vramplan/vramplan/internal/jsonlite"
)

// figuresColumn returns m as json.Marshal encodes it, and reports whether
// it could: JSON holds no NaN or infinity.
func figuresColumn(m map[string]float64) (string, bool) {
	if m == nil {
		return "null", true
	}
	var keyArray [64]string // an upload of the H200 has 39 figures
	keys := keyArray[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var bufArray [2048]byte
	b := append(bufArray[:0], '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonlite.AppendString(b, k), ':')
		var ok bool
		if b, ok = jsonlite.AppendFloat(b, m[k]); !ok {
			return "", false
		}
	}
	return string(append(b, '}')), true
}

// readFigures decodes a figures column.
func readFigures(s string) (map[string]float64, error) {
	if m, ok := fastFigures(s); ok {
		return m, nil
	}
	var m map[string]float64
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}

// fastFigures decodes a flat object of plain keys (printable ASCII, no
// escapes) and numbers, and reports whether s was one.
func fastFigures(s string) (map[string]float64, bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return nil, false
	}
	m := make(map[string]float64, 40)
	if i = skipSpace(s, i+1); i < len(s) && s[i] == '}' {
		return m, skipSpace(s, i+1) == len(s)
	}
	for i < len(s) {
		k, j, ok := plainKey(s, i)
		if !ok {
			return nil, false
		}
		v, j, ok := number(s, skipSpace(s, j))
		if !ok {
			return nil, false
		}
		m[k] = v
		if j = skipSpace(s, j); j < len(s) && s[j] == '}' {
			return m, skipSpace(s, j+1) == len(s)
		}
		if j >= len(s) || s[j] != ',' {
			return nil, false
		}
		i = skipSpace(s, j+1)
	}
	return nil, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// plainKey reads a key and its colon at s[i:], returning the index after
// the colon.
func plainKey(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	j := i + 1
	for j < len(s) && s[j] != '"' {
		if s[j] < 0x20 || s[j] == '\\' || s[j] > 0x7e {
			return "", 0, false
		}
		j++
	}
	k := skipSpace(s, j+1)
	if j >= len(s) || k >= len(s) || s[k] != ':' {
		return "", 0, false
	}
	return s[i+1 : j], k + 1, true
}

// number reads a JSON number at s[i:], returning the index after it.
func number(s string, i int) (float64, int, bool) {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && '1' <= s[j] && s[j] <= '9':
		j = digits(s, j)
	default:
		return 0, 0, false
	}
	if j < len(s) && s[j] == '.' {
		if k := digits(s, j+1); k > j+1 {
			j = k
		} else {
			return 0, 0, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digits(s, j)
		if k == j {
			return 0, 0, false
		}
		j = k
	}
	v, err := strconv.ParseFloat(s[i:j], 64)
	return v, j, err == nil
}

func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
