//go:build !stdjson

package store

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
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

// figureMaps are columns to write: the keys every escape touches (HTML
// characters, control bytes, U+2028, invalid UTF-8), the floats at each of
// encoding/json's format changes, and values it refuses.
var figureMaps = []map[string]float64{
	nil, {}, {"context_bytes": 552402944, "device_total_bytes": 150109880320, "vmm.commit.2097152.p50_us": 36.4, "vmm.supported": 1},
	{"a": 1e21, "b": 1e-6, "c": 9.99999e-7, "d": 999999999999999999999, "e": math.Copysign(0, -1), "f": 5e-324, "g": math.MaxFloat64, "h": -1e-7, "i": 0.1},
	{"<a&b>": 1, "\u2028\u2029": 2, "\x01\t\n\"\\": 3, "\xff\xfe": 4, "é": 5, "": 6, "B": 7, "a": 8, "ab": 9},
	{"nan": math.NaN()}, {"a": 1, "inf": math.Inf(1)}, {"-inf": math.Inf(-1)},
}

// TestFiguresColumn holds figuresColumn to json.Marshal.
func TestFiguresColumn(t *testing.T) {
	for _, m := range figureMaps {
		checkColumn(t, m)
	}
	big := map[string]float64{}
	for i := range 200 {
		big[strings.Repeat("k", i%7)+strconv.Itoa(i)] = float64(i) * 1.5e9
	}
	checkColumn(t, big) // past figuresColumn's stack buffers
}

func checkColumn(t *testing.T, m map[string]float64) {
	t.Helper()
	got, ok := figuresColumn(m)
	want, err := json.Marshal(m)
	if ok != (err == nil) || ok && got != string(want) {
		t.Errorf("figuresColumn(%v) = %q, %v; json.Marshal gives %q, %v", m, got, ok, want, err)
	}
}

// FuzzFiguresColumn holds figuresColumn to json.Marshal on maps made from
// the input: keys are the text split at NUL, values the float64s the bytes
// spell eight at a time (every bit pattern, NaNs and infinities included).
func FuzzFiguresColumn(f *testing.F) {
	for _, m := range figureMaps {
		var keys []string
		var vals []byte
		for k, v := range m {
			keys = append(keys, k)
			vals = binary.LittleEndian.AppendUint64(vals, math.Float64bits(v))
		}
		f.Add(strings.Join(keys, "\x00"), vals)
	}
	f.Fuzz(func(t *testing.T, keys string, vals []byte) {
		m := map[string]float64{}
		for i, k := range strings.Split(keys, "\x00") {
			if 8*i+8 > len(vals) {
				break
			}
			m[k] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*i:]))
		}
		checkColumn(t, m)
		if s, ok := figuresColumn(m); ok {
			checkFigures(t, s) // and what it wrote reads back as json.Unmarshal reads it
		}
	})
}
