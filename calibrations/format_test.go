package calibrations

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"reflect"
	"testing"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
)

// marshalIndent is the canonical encoding's specification.
func marshalIndent(c *planner.Calibration) []byte {
	b, _ := json.MarshalIndent(c, "", "  ")
	return append(b, '\n')
}

// fill sets every field of v, recursively, to a value that is not zero,
// taking strings and floats from the lists in turn: a field Format does not
// write then differs from encoding/json's output.
func fill(v reflect.Value, strs []string, floats []float64, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), strs, floats, n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), strs, floats, n)
		fill(v.Index(1), strs, floats, n)
	case reflect.String:
		v.SetString(strs[*n%len(strs)])
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n) * -1234567891)
	case reflect.Float64:
		v.SetFloat(floats[*n%len(floats)])
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("fill: a field of kind " + v.Kind().String() + ": teach Format and this test about it")
	}
}

var (
	oddStrings = []string{"plain", `quote " and \ backslash`, "<script>&amp;</script>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"é ü 中文 🙂", "\u2028\u2029", "bad \xff\xfe utf-8 \xed\xa0\x80", "/home/x", ""}
	oddFloats = []float64{0.1, 1e-7, 1e21, 1e20, 123456789.125, -0.000001, -2.5e-10, 5e-324, math.MaxFloat64, 37.7, 1e-6, 999999999999999999999.0}
)

func TestFormatIsMarshalIndent(t *testing.T) {
	for i := range oddStrings {
		var c planner.Calibration
		n := i
		fill(reflect.ValueOf(&c).Elem(), oddStrings, oddFloats, &n)
		if got, want := Format(&c), marshalIndent(&c); !bytes.Equal(got, want) {
			t.Errorf("Format(every field, start %d) =\n%s\nwant\n%s", i, got, want)
		}
	}
	var zero planner.Calibration
	if got, want := Format(&zero), marshalIndent(&zero); !bytes.Equal(got, want) {
		t.Errorf("Format(zero) =\n%s\nwant\n%s", got, want)
	}
	empty := planner.Calibration{Comm: []planner.CommCost{}, VMM: planner.VMM{Commit: []planner.Latency{{}}}}
	if got, want := Format(&empty), marshalIndent(&empty); !bytes.Equal(got, want) {
		t.Errorf("Format(empty lists) =\n%s\nwant\n%s", got, want)
	}
	nan := planner.Calibration{Provenance: planner.Provenance{Spread: math.NaN()}}
	if got, want := Format(&nan), marshalIndent(&nan); !bytes.Equal(got, want) {
		t.Errorf("Format(NaN) = %q, want %q", got, want)
	}
}

func TestAppendStringAndFloat(t *testing.T) {
	for _, s := range oddStrings {
		want, _ := json.Marshal(s)
		if got := jsonlite.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
	for _, f := range append(oddFloats, 0, math.Copysign(0, -1), 1e-300, 12e-7, 1.5e300, -1e21) {
		want, _ := json.Marshal(f)
		if got, _ := jsonlite.AppendFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// FuzzFormat holds Format to json.MarshalIndent on whatever encoding/json
// decodes into a calibration, with a fuzzed string and float besides.
func FuzzFormat(f *testing.F) {
	names, _ := fs.Glob(files, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(files, n)
		f.Add(data, "", 0.0)
	}
	f.Add([]byte(`{"vmm":{"commit":[{"p50_us":1e-9}]},"comm":[{}]}`), "<\xff\u2028>", 1e21)
	f.Fuzz(func(t *testing.T, data []byte, s string, x float64) {
		var c planner.Calibration
		if json.Unmarshal(data, &c) != nil {
			c = planner.Calibration{}
		}
		c.Provenance.Tool, c.Provenance.Spread = s, x
		if got, want := Format(&c), marshalIndent(&c); !bytes.Equal(got, want) {
			t.Fatalf("Format =\n%s\nwant\n%s", got, want)
		}
	})
}
