//go:build !stdjson

package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

var figureColumns = []string{
	`{"context_bytes":552402944,"device_total_bytes":150109880320,"vmm.commit.2097152.p50_us":36.4,"vmm.supported":1}`,
	`{}`, ` { } `, `{"a":-0,"b":1e-7,"c":1E+21,"d":0.5}`, `{"a":1,"a":2}`, `{"a":1e400}`, `{"a":01}`, `{"a":1.}`,
	`{"a":.5}`, `{"a":"1"}`, `{"a":null}`, `{"\u0061":1}`, `{"é":1}`, `{"a":1,}`, `{"a":1}x`, `{"a" : 1 , "b" : 2}`,
	`[]`, ``, `{"a":-}`, `{"a":1e}`, `{"a":1,"b"}`, `{"a\tb":1}`,
}

// TestReadFigures holds readFigures to json.Unmarshal, and checks the
// common column takes the fast path.
func TestReadFigures(t *testing.T) {
	for _, s := range figureColumns {
		checkFigures(t, s)
	}
	if _, ok := fastFigures(figureColumns[0]); !ok {
		t.Errorf("fastFigures(%s) declined a column as InsertArgs writes it", figureColumns[0])
	}
}

func checkFigures(t *testing.T, s string) {
	t.Helper()
	got, err := readFigures(s)
	var want map[string]float64
	wantErr := json.Unmarshal([]byte(s), &want)
	if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("readFigures(%q) = %v, %v; json.Unmarshal gives %v, %v", s, got, err, want, wantErr)
	}
}

func FuzzReadFigures(f *testing.F) {
	for _, s := range figureColumns {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFigures(t, s) })
}
