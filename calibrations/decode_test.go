//go:build !stdjson

package calibrations

import (
	"bytes"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestFastDecodeReadsTheTable checks that every table file, canonical as
// Format writes it, is in fastDecode's subset and decodes as encoding/json
// decodes it.
func TestFastDecodeReadsTheTable(t *testing.T) {
	names, _ := fs.Glob(files, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(files, n)
		var fast, slow planner.Calibration
		if ok, _ := fastDecode(data, &fast); !ok {
			t.Errorf("fastDecode(%s) declined a canonical document", n)
		}
		if err := decode(data, &slow); err != nil || !reflect.DeepEqual(fast, slow) {
			t.Errorf("fastDecode(%s) = %+v\nencoding/json: %+v, %v", n, fast, slow, err)
		}
	}
}

// TestFastDecodeDeclines lists documents outside the subset: fastDecode
// leaves each to encoding/json, whose answer Parse gives.
func TestFastDecodeDeclines(t *testing.T) {
	good, _ := fs.ReadFile(files, "h200-linux-cuda13.0.json")
	for _, tc := range []struct{ name, from, to string }{
		{"key in capitals", `"gpu":`, `"GPU":`},
		{"escaped key", `"gpu":`, `"g\u0070u":`},
		{"key twice", `"gpu": "NVIDIA H200",`, `"gpu": "NVIDIA H200", "gpu": "x",`},
		{"key twice, case-folded", `"gpu": "NVIDIA H200",`, `"gpu": "NVIDIA H200", "Gpu": "x",`},
		{"unknown key", `"gpu":`, `"gpuu":`},
		{"null", `"arch": "sm_90"`, `"arch": null`},
		{"surrogate pair", `"sm_90"`, `"sm_\ud83d\ude00"`},
		{"lone surrogate", `"sm_90"`, `"sm_\ud83d"`},
		{"invalid UTF-8", `"sm_90"`, "\"sm_\xff\""},
		{"control character", `"sm_90"`, "\"sm\t90\""},
		{"fraction in an integer", `"sm_count": 132`, `"sm_count": 132.0`},
		{"exponent in an integer", `"sm_count": 132`, `"sm_count": 1e2`},
		{"integer overflow", `"device_total_bytes": 150109880320`, `"device_total_bytes": 9223372036854775808`},
		{"float overflow", `"p50_us": 36.4`, `"p50_us": 1e999`},
		{"leading zero", `"sm_count": 132`, `"sm_count": 0132`},
		{"string for a number", `"sm_count": 132`, `"sm_count": "132"`},
		{"trailing data", "}\n}\n", "}\n}\n{}"},
		{"trailing bracket", "}\n}\n", "}\n}\n]"},
		{"trailing comma", `"platform": "linux",`, `"platform": "linux",,`},
		{"bad escape", `"sm_90"`, `"sm\x90"`},
	} {
		data := []byte(strings.Replace(string(good), tc.from, tc.to, 1))
		if bytes.Equal(data, good) {
			t.Fatalf("%s: %q not found", tc.name, tc.from)
		}
		var c planner.Calibration
		if ok, _ := fastDecode(data, &c); ok {
			t.Errorf("fastDecode(%s) = true, want it declined", tc.name)
		}
	}
}

// FuzzFastDecode holds fastDecode to encoding/json: what it decodes,
// encoding/json decodes alike, with no key given twice.
func FuzzFastDecode(f *testing.F) {
	names, _ := fs.Glob(files, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(files, n)
		f.Add(data)
	}
	f.Add([]byte(`{"vmm":{"commit":[]},"comm":[{"group_ranks":2,"bytes":-0}],"provenance":{"spread":1e-7,"notes":"\u00e9\"\\\/\b\f\n\r\t"}}`))
	f.Add([]byte(`{"sm_count":-0,"device_total_bytes":9223372036854775807,"vmm":{"decommit":[{"p50_us":-0.0,"p90_us":1E+2}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast planner.Calibration
		if ok, _ := fastDecode(data, &fast); !ok {
			return
		}
		var slow planner.Calibration
		if err := decode(data, &slow); err != nil {
			t.Fatalf("fastDecode accepted what encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fastDecode = %+v\nencoding/json = %+v", fast, slow)
		}
	})
}
