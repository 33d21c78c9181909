//go:build !stdjson

package calibrations

import (
	"bytes"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
)

// checkCanonical fails when fastDecode calls data canonical and Format
// writes it otherwise, and returns what fastDecode said.
func checkCanonical(t *testing.T, name string, data []byte) (ok, canonical bool) {
	t.Helper()
	var c planner.Calibration
	ok, canonical = fastDecode(data, &c)
	if canonical && !bytes.Equal(Format(&c), data) {
		t.Fatalf("fastDecode(%s) called a document canonical that Format writes otherwise:\n%s\nFormat:\n%s", name, data, Format(&c))
	}
	return ok, canonical
}

// TestCanonicalTable checks every table file, canonical as Format writes
// it, is called so.
func TestCanonicalTable(t *testing.T) {
	names, _ := fs.Glob(files, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(files, n)
		if _, canonical := checkCanonical(t, n, data); !canonical {
			t.Errorf("fastDecode(%s): not canonical, want canonical", n)
		}
	}
}

// TestCanonicalEveryField checks that Format's output for calibrations
// with every field set, from odd strings and floats, is called canonical
// wherever it is (its decoding formats to it again).
// Invalid UTF-8 is left out: Format writes it as U+FFFD, which reads back
// as itself, so those documents are not Format's for what they decode to.
func TestCanonicalEveryField(t *testing.T) {
	strs := slices.DeleteFunc(slices.Clone(oddStrings), func(s string) bool { return !utf8.ValidString(s) })
	for i := range strs {
		var c, d planner.Calibration
		n := i
		fill(reflect.ValueOf(&c).Elem(), strs, oddFloats, &n)
		data := Format(&c)
		ok, canonical := checkCanonical(t, "every field", data)
		fastDecode(data, &d)
		if !ok || !bytes.Equal(Format(&d), data) || !canonical {
			t.Errorf("fastDecode(every field, start %d) = %v, canonical %v; want read, canonical:\n%s", i, ok, canonical, data)
		}
	}
}

// nearCanonical are edits of the H200's file that fastDecode reads but
// Format writes otherwise, each at one rule of canonical.go.
var nearCanonical = []struct{ name, from, to string }{
	{"tab indent", "\n  \"id\"", "\n\t\"id\""},
	{"indent too deep", "\n  \"id\"", "\n   \"id\""},
	{"indent too shallow", "\n        \"chunk_bytes\"", "\n      \"chunk_bytes\""},
	{"two spaces after a colon", `"id": "h200`, `"id":  "h200`},
	{"no space after a colon", `"id": "h200`, `"id":"h200`},
	{"space before a colon", `"id": "h200`, `"id" : "h200`},
	{"space before a comma", `"linux",`, `"linux" ,`},
	{"CRLF", "\"linux\",\n", "\"linux\",\r\n"},
	{"closing bracket indented", "\n  }\n}\n", "\n    }\n}\n"},
	{"closing bracket on the line", "\n  }\n}\n", "}\n}\n"},
	{"no final newline", "\n  }\n}\n", "\n  }\n}"},
	{"two final newlines", "\n  }\n}\n", "\n  }\n}\n\n"},
	{"space at the end", "\n  }\n}\n", "\n  }\n} \n"},
	{"keys out of order", "\"gpu\": \"NVIDIA H200\",\n  \"arch\": \"sm_90\",", "\"arch\": \"sm_90\",\n  \"gpu\": \"NVIDIA H200\","},
	{"an empty omitempty string", `"arch": "sm_90"`, `"arch": ""`},
	{"a zero omitempty integer", `"sm_count": 132`, `"sm_count": 0`},
	{"a zero omitempty float", `"p50_us": 36.4`, `"p50_us": 0`},
	{"a negative zero float", `"p50_us": 36.4`, `"p50_us": -0`},
	{"a missing member", "\n  \"graph_exec_bytes\": 0,", ""},
	{"a negative zero integer", `"graph_exec_bytes": 0`, `"graph_exec_bytes": -0`},
	{"a trailing zero", `"p50_us": 36.4`, `"p50_us": 36.40`},
	{"an exponent", `"p50_us": 36.4`, `"p50_us": 3.64e1`},
	{"an exponent in capitals", `"p90_us": 40.8`, `"p90_us": 4.08E+1`},
	{"an escape Format writes otherwise", `"sm_90"`, `"sm\u005f90"`},
	{"an escaped slash", `"sm_90"`, `"sm\/90"`},
	{"a raw <", `"sm_90"`, `"sm<90"`},
	{"a raw &", `"sm_90"`, `"sm&90"`},
	{"a raw U+2028", `"sm_90"`, "\"sm\u202890\""},
	{"a raw U+2029", `"sm_90"`, "\"sm\u202990\""},
	{"an empty list", "\"graph_exec_bytes\": 0,", "\"graph_exec_bytes\": 0,\n  \"comm\": [],"},
	{"an escape in capitals", `"sm_90"`, `"sm\u001F90"`},
	{"an escaped letter", `"sm_90"`, `"sm\u00e990"`},
	{"a raw > after an escape", `"sm_90"`, `"sm\"9>0"`},
	{"leading space", "{\n  \"schema\"", " {\n  \"schema\""},
}

// TestCanonicalDeclines checks fastDecode calls none of nearCanonical
// canonical, and that each is one Format writes otherwise.
func TestCanonicalDeclines(t *testing.T) {
	good, _ := fs.ReadFile(files, "h200-linux-cuda13.0.json")
	for _, tc := range nearCanonical {
		data := []byte(strings.Replace(string(good), tc.from, tc.to, 1))
		if bytes.Equal(data, good) {
			t.Fatalf("%s: %q not found", tc.name, tc.from)
		}
		ok, canonical := checkCanonical(t, tc.name, data)
		var c planner.Calibration
		fastDecode(data, &c)
		if !ok || canonical || bytes.Equal(Format(&c), data) {
			t.Errorf("fastDecode(%s) = %v, canonical %v; want read, not canonical", tc.name, ok, canonical)
		}
	}
	// These are canonical: Format writes a source, escapes and an
	// exponent as they are here.
	for _, tc := range []struct{ name, from, to string }{
		{"a source", "\"platform\": \"linux\",", "\"platform\": \"linux\",\n  \"source\": \"measured\","},
		{"U+2027 and U+202A", `"sm_90"`, "\"sm\u2027\u202a90\""},
		{"a tiny float", `"p50_us": 36.4`, `"p50_us": 1e-7`},
		{"the escapes Format writes", `"sm_90"`, `"sm\"\\\b\f\n\r\t\u0001\u001f\u003c\u003e\u0026\u2028\u2029é90"`},
	} {
		data := []byte(strings.Replace(string(good), tc.from, tc.to, 1))
		if _, canonical := checkCanonical(t, tc.name, data); !canonical {
			t.Errorf("fastDecode(%s): not canonical, want canonical", tc.name)
		}
	}
}

// shortDocuments are all space, or an empty object and space: none is
// canonical (Format writes no empty object).
var shortDocuments = []string{"", "\n", " ", "\n\n", "{}", "{}\n", "{\n}\n", " {}\n", "[]\n", "}\n"}

func TestCanonicalShort(t *testing.T) {
	for _, s := range shortDocuments {
		if _, canonical := checkCanonical(t, "a short document", []byte(s)); canonical {
			t.Errorf("fastDecode(%q): canonical, want not", s)
		}
	}
}

// FuzzCanonical holds fastDecode's canonical to Format: a document it
// calls canonical is what Format writes, byte for byte.
func FuzzCanonical(f *testing.F) {
	names, _ := fs.Glob(files, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(files, n)
		f.Add(data)
	}
	good, _ := fs.ReadFile(files, "h200-linux-cuda13.0.json")
	for _, tc := range nearCanonical {
		f.Add([]byte(strings.Replace(string(good), tc.from, tc.to, 1)))
	}
	for _, s := range shortDocuments {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkCanonical(t, "the input", data) })
}

// plainDecimals are numbers about plainDecimal's edges.
var plainDecimals = []string{"0", "-0", "1", "-1", "36.4", "36.40", "0.1", "0.000001", "0.0000012", "0.0000009", "0.00000123456789012345",
	"123456789012345", "1234567890123456", "12345678901234.5", "1234567890123.45", "99999999999999.9", "0.999999999999999",
	"9007199254740993", "1e-7", "1E2", "100", "1500", "0.30000000000000004", "0.3", "00", "-", ".5", "5.", "1.0e1"}

// TestPlainDecimal holds plainDecimal to Format's spelling.
func TestPlainDecimal(t *testing.T) {
	for _, s := range plainDecimals {
		checkPlainDecimal(t, s)
	}
	if !plainDecimal([]byte("36.4")) || !plainDecimal([]byte("0.000001")) || plainDecimal([]byte("0.0000009")) {
		t.Error("plainDecimal misjudges 36.4, 0.000001 or 0.0000009")
	}
}

// checkPlainDecimal checks plainDecimal on s when s is a JSON number.
func checkPlainDecimal(t *testing.T, s string) {
	t.Helper()
	r := reader{data: []byte(s)}
	if num, _ := r.number(); r.bad || r.i != len(s) || string(num) != s || !plainDecimal(num) {
		return
	}
	v, err := strconv.ParseFloat(s, 64)
	f, _ := jsonlite.AppendFloat(nil, v)
	if err != nil || string(f) != s {
		t.Errorf("plainDecimal(%q) = true, but Format writes %s (%v)", s, f, err)
	}
}

func FuzzPlainDecimal(f *testing.F) {
	for _, s := range plainDecimals {
		f.Add(s)
	}
	f.Fuzz(checkPlainDecimal)
}
