//go:build stdjson

package store

// This file writes and reads the figures column by encoding/json under the
// stdjson tag, which `make worker` sets: the Workers build links
// encoding/json anyway and is held to 3 MB gzip, so it goes without
// figures.go's writer and reader, which figures_test.go holds to the same
// result.

import "encoding/json"

// figuresColumn returns m as json.Marshal encodes it, and reports whether
// it could: JSON holds no NaN or infinity.
func figuresColumn(m map[string]float64) (string, bool) {
	b, err := json.Marshal(m)
	return string(b), err == nil
}

// readFigures decodes a figures column.
func readFigures(s string) (map[string]float64, error) {
	var m map[string]float64
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}
