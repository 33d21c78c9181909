package store

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
