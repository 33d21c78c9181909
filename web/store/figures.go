//go:build !stdjson

package store

// This file reads an upload's figures column without encoding/json: the
// background refresh of a group reads every upload's figures, and
// decoding them by reflection was most of its cost. readFigures reads the
// column as InsertArgs writes it (json.Marshal of a map of figure names to
// numbers) and leaves anything else to json.Unmarshal, which gives the
// same map or the error; figures_test.go holds the two together under
// fuzzing. The worker's build reads by encoding/json alone
// (figures_stdjson.go).

import (
	"encoding/json"
	"strconv"
)

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
