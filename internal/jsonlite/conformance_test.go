package jsonlite_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc"
)

// This file holds jsonlite to encoding/json on the documents the planner's
// WebAssembly module reads and writes: every golden input and plan, every
// catalog model and calibration, and the calculator's views of them.

func goldenFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../../planner/testdata/golden", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files %s: %v", pattern, err)
	}
	return files
}

// sameEncoding fails unless both encoders give the same bytes for v.
func sameEncoding(t *testing.T, name string, v any) {
	t.Helper()
	want, werr := json.MarshalIndent(v, "", "  ")
	got, gerr := jsonlite.MarshalIndent(v, "", "  ")
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("%s: MarshalIndent differs from encoding/json (err %v, want %v)\n%s", name, gerr, werr, firstDiff(got, want))
	}
	want, _ = json.Marshal(v)
	got, _ = jsonlite.Marshal(v)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: Marshal differs from encoding/json\n%s", name, firstDiff(got, want))
	}
}

func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-80, 0)
	return "got  …" + string(got[lo:min(i+80, len(got))]) + "\nwant …" + string(want[lo:min(i+80, len(want))])
}

// sameDecoding fails unless both decoders agree on data read into a new
// value of v's type: both fail, or both give equal values.
func sameDecoding[T any](t *testing.T, name string, data []byte) T {
	t.Helper()
	var want, got T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	werr := dec.Decode(&want)
	if werr == nil && dec.More() {
		werr = errors.New("trailing data") // as planner's decodeStrict says
	}
	gerr := jsonlite.UnmarshalStrict(data, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: UnmarshalStrict error %v, encoding/json %v", name, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: UnmarshalStrict = %+v, encoding/json %+v", name, got, want)
	}
	return got
}

func TestGoldenDocuments(t *testing.T) {
	for _, f := range goldenFiles(t, "*.input.json") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in := sameDecoding[planner.Input](t, f, data)
		sameEncoding(t, f, in)
		p, _ := planner.Report(in)
		sameEncoding(t, f+" plan", p)
		if !bytes.Equal(bytes.TrimSpace(p.JSON()), mustIndent(t, p)) {
			t.Errorf("%s: Plan.JSON differs from jsonlite.MarshalIndent", f)
		}
	}
	for _, f := range goldenFiles(t, "*.plan.json") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := sameDecoding[planner.Plan](t, f, data)
		sameEncoding(t, f, p)
	}
}

// TestLogDocuments holds jsonlite to encoding/json on the parsed start-up
// logs the page's checkLog reads, whose settings embed enginelog.Launch.
func TestLogDocuments(t *testing.T) {
	files, err := filepath.Glob("../../planner/enginelog/testdata/logs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no parsed logs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameEncoding(t, f, sameDecoding[enginelog.Log](t, f, data))
	}
}

func mustIndent(t *testing.T, v any) []byte {
	b, err := jsonlite.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCatalogViews encodes and decodes every catalog model and calibration
// and the calculator's view of each model on one GPU, under each engine.
func TestCatalogViews(t *testing.T) {
	models, err := catalog.All()
	if err != nil {
		t.Fatal(err)
	}
	cals, err := calibrations.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cals {
		b, _ := json.Marshal(c)
		sameEncoding(t, c.ID, sameDecoding[planner.Calibration](t, c.ID, b))
	}
	engines := []planner.EngineName{"", planner.EngineLlamaCpp, planner.EngineVLLM, planner.EngineSGLang}
	for i, m := range models {
		b, _ := json.Marshal(m)
		sameEncoding(t, m.ID, sameDecoding[planner.Model](t, m.ID, b))
		s := calc.State{Engine: engines[i%len(engines)]}
		v := calc.Calculate(s, m, cals[i%len(cals)])
		sameEncoding(t, m.ID+" view", v)
		sb, _ := json.Marshal(s)
		sameDecoding[calc.State](t, m.ID+" state", sb)
	}
}

// shapes is a type with every kind of field jsonlite supports.
type shapes struct {
	Embedded
	*Pointed
	B     bool        `json:"b"`
	I     int         `json:"i,omitempty"`
	I8    int8        `json:"i8"`
	U     uint32      `json:"u"`
	F     float64     `json:"f"`
	F32   float32     `json:"f32,omitempty"`
	S     string      `json:"s"`
	P     *int        `json:"p"`
	L     []string    `json:"l,omitempty"`
	A     [2]int      `json:"a"`
	N     []*Embedded `json:"n"`
	Z     Embedded    `json:"z,omitzero"`
	Skip  int         `json:"-"`
	Plain string
	Deep  [][]float64 `json:"deep"`
	Odd   string      `json:"odd,omitempty" other:"x y"`
	un    int         //lint:ignore U1000 the encoder must skip an unexported field
}

type Embedded struct {
	E     int    `json:"e"`
	Plain string // hidden by shapes.Plain
	Name  string `json:"s"` // hidden by shapes.S
}

type Pointed struct {
	Q string `json:"q,omitempty"`
}

func TestRoundTrips(t *testing.T) {
	seven := 7
	for _, v := range []shapes{
		{},
		{B: true, I: -3, I8: -128, U: 4e9, F: 1e21, F32: 1.5e-7, S: "<a&b>\u2028\x01\"\\\t\xff", P: &seven,
			L: []string{}, A: [2]int{1, 2}, N: []*Embedded{nil, {E: 1}}, Z: Embedded{E: 2},
			Plain: "p", Deep: [][]float64{{0.1, 1e-7, -0, 123456789}, nil}, Pointed: &Pointed{Q: "q"}, Odd: "o"},
		{F: 0.000001, F32: 3.4e38, Embedded: Embedded{E: 5, Plain: "hidden"}},
	} {
		sameEncoding(t, "shapes", v)
		b, _ := json.Marshal(v)
		sameDecoding[shapes](t, string(b), b)
	}
}

// TestPlannerTypes walks every type reachable from the documents the
// WebAssembly module reads and writes and fails on one jsonlite does not
// encode as encoding/json would: a map, an interface, a channel or
// function, []byte, or a type with its own JSON, text or IsZero methods.
func TestPlannerTypes(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, v := range []any{planner.Input{}, planner.Plan{}, planner.Model{}, planner.Calibration{}, calc.State{}, calc.View{}, []planner.Point{}} {
		walk(t, reflect.TypeOf(v), seen)
	}
}

func walk(t *testing.T, ty reflect.Type, seen map[reflect.Type]bool) {
	if seen[ty] {
		return
	}
	seen[ty] = true
	pt := reflect.PointerTo(ty)
	for _, m := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText", "IsZero"} {
		if _, ok := pt.MethodByName(m); ok {
			t.Errorf("%v has a %s method, which jsonlite does not consult", ty, m)
		}
	}
	switch ty.Kind() {
	case reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		t.Errorf("%v is a %v, which jsonlite does not support", ty, ty.Kind())
	case reflect.Slice:
		if ty.Elem().Kind() == reflect.Uint8 {
			t.Errorf("%v is a byte slice, which jsonlite does not encode as base64", ty)
		}
		walk(t, ty.Elem(), seen)
	case reflect.Array, reflect.Pointer:
		walk(t, ty.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < ty.NumField(); i++ {
			if f := ty.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				if strings.Contains(f.Tag.Get("json"), ",string") {
					t.Errorf("%v.%s has the ,string option, which jsonlite does not support", ty, f.Name)
				}
				walk(t, f.Type, seen)
			}
		}
	}
}

// TestUnsupported checks that what jsonlite does not support is an error.
func TestUnsupported(t *testing.T) {
	for _, v := range []any{map[string]int{"a": 1}, []byte("x"), make(chan int), struct{ X any }{X: map[string]int{}}} {
		if _, err := jsonlite.Marshal(v); err == nil {
			t.Errorf("Marshal(%T) succeeded, want an error", v)
		}
	}
	var m map[string]int
	var x any
	for _, p := range []any{&m, &x} {
		if err := jsonlite.Unmarshal([]byte(`{"a":1}`), p); err == nil {
			t.Errorf("Unmarshal into %T succeeded, want an error", p)
		}
	}
}

// TestDecodeCases compares the two decoders on documents with faults.
func TestDecodeCases(t *testing.T) {
	for _, doc := range []string{
		``, ` `, `{}`, `null`, `[]`, `"s"`, `{"b":true}`, `{"B":true}`, `{"plain":"x","PLAIN":"y"}`,
		`{"i":1.5}`, `{"i":1e3}`, `{"i8":300}`, `{"u":-1}`, `{"f":1e999}`, `{"i":"1"}`, `{"s":1}`,
		`{"l":["a","b"]}`, `{"l":[1]}`, `{"a":[1,2,3]}`, `{"a":[1]}`, `{"q":"pointed"}`, `{"unknown":1}`, `{"b":true}x`,
		`{"b":true}{}`, `{"s":"\u00e9\ud83d\ude00\ud800x\u0041\/"}`, `{"s":"\x"}`, `{"s":"a` + "\n" + `"}`,
		`{"s":"\u12g4"}`, `{"f":-0.0e+1}`, `{"f":01}`, `{"f":-}`, `{"f":1.}`, `{"f":1e}`, `{"b":tru}`,
		`{"b":nul}`, `{,}`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `{"n":[null,{"e":1}]}`, `{"p":null}`,
		`{"deep":[[1,2],[3]]}`, `{"z":{"e":1}}`, `{"e":4,"s":"outer"}`, `{"l":null,"m":null}`, "{\"s\":\"\xff\"}",
		`{"odd":"x"} `, `{"i":9223372036854775808}`, `{"Skip":1}`, `{"un":1}`,
		`{"b":true,"b":false}`, `{"i":-0}`, `{"f":1E+2}`, `[[[[]]]]`, `{"a":{"b":1}}`, `{"l":{"a":1}}`,
	} {
		sameDecoding[shapes](t, doc, []byte(doc))
		var a, b shapes
		werr := json.Unmarshal([]byte(doc), &a)
		gerr := jsonlite.Unmarshal([]byte(doc), &b)
		if (werr == nil) != (gerr == nil) || werr == nil && !reflect.DeepEqual(a, b) {
			t.Errorf("Unmarshal(%q) = %+v, %v; encoding/json %+v, %v", doc, b, gerr, a, werr)
		}
	}
}

// TestErrorMessages checks that the common faults read as encoding/json's.
func TestErrorMessages(t *testing.T) {
	for _, doc := range []string{
		`{"unknown":1}`, `{"i":"1"}`, `{"i":1.5}`, `{"n":[{"e":"x"}]}`, `{"b":x}`, `{"s":1}`, `[1]`, `{"b":true`,
	} {
		var a, b shapes
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.DisallowUnknownFields()
		werr := dec.Decode(&a)
		gerr := jsonlite.UnmarshalStrict([]byte(doc), &b)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			if doc == `{"b":true` && gerr != nil && gerr.Error() == "unexpected end of JSON input" {
				continue // the stream decoder says "unexpected EOF"; json.Unmarshal says this
			}
			t.Errorf("UnmarshalStrict(%q): %v, encoding/json: %v", doc, gerr, werr)
		}
	}
}

func TestDepth(t *testing.T) {
	doc := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	var x any
	if err := jsonlite.Unmarshal([]byte(doc), &x); err == nil {
		t.Errorf("Unmarshal of arrays nested 20000 deep succeeded, want an error")
	}
}

func TestNonPointer(t *testing.T) {
	var s shapes
	if err := jsonlite.Unmarshal([]byte(`{}`), s); err == nil {
		t.Errorf("Unmarshal into a non-pointer succeeded")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"b":true,"l":["a"],"e":2,"q":"z","n":[null],"deep":[[1e5]]}`, `{"f":1e-7}`, `[1]`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b shapes
		werr := json.Unmarshal(data, &a)
		gerr := jsonlite.Unmarshal(data, &b)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Unmarshal(%q): %v; encoding/json: %v", data, gerr, werr)
		}
		if werr != nil {
			return
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Unmarshal(%q) = %+v; encoding/json %+v", data, b, a)
		}
		want, werr := json.Marshal(a)
		got, gerr := jsonlite.Marshal(b)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("Marshal after Unmarshal(%q) = %s, %v; encoding/json %s, %v", data, got, gerr, want, werr)
		}
	})
}
