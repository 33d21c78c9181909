package mem_test

// The I3 mechanism asserted at compile time: a StableSpan cannot be made
// from a raw address or a DeviceSpan outside package mem. The snippets are
// type-checked against the real package with go/types; the ones that
// should not compile must fail, and the control must pass, so a refactor
// that reopens the hole fails here.

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/mem"
)

func typeCheck(t *testing.T, imp types.Importer, fset *token.FileSet, body string) error {
	src := `package p
import (
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/mem"
)
var _ backend.Addr
func f(raw backend.Addr, d mem.DeviceSpan, s mem.StableSpan) (out mem.StableSpan) {
	` + body + `
	return out
}
`
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatalf("parse %q: %v", body, err)
	}
	_, err = (&types.Config{Importer: imp}).Check("p", fset, []*ast.File{file}, nil)
	return err
}

func TestStableSpanCannotBeForged(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks from source")
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	forged := []string{
		`out = mem.StableSpan{raw, 64, 0, 0}`,
		`out = mem.StableSpan{addr: raw}`,
		`out = mem.StableSpan(d)`,
		`out = d`,
		`out = mem.StableSpan(raw)`,
	}
	for _, body := range forged {
		if err := typeCheck(t, imp, fset, body); err == nil {
			t.Errorf("%q type-checks; a StableSpan must not be constructible from a raw address or a DeviceSpan", body)
		}
	}
	control := `var w mem.DeviceSpan = s.Device(); _ = w; out = s.Slice(0, 1)`
	if err := typeCheck(t, imp, fset, control); err != nil {
		t.Errorf("control %q does not type-check: %v", control, err)
	}
}

func TestStableSpanHasNoExportedWayIn(t *testing.T) {
	typ := reflect.TypeFor[mem.StableSpan]()
	for f := range typ.Fields() {
		if f.IsExported() {
			t.Errorf("StableSpan has exported field %s", f.Name)
		}
	}
	for m := range reflect.PointerTo(typ).Methods() {
		if out := m.Type.NumOut(); out > 0 && m.Type.Out(0) == typ && m.Name != "Slice" {
			t.Errorf("StableSpan method %s returns a StableSpan from scratch", m.Name)
		}
		if strings.HasPrefix(m.Name, "Set") {
			t.Errorf("StableSpan has a mutator %s", m.Name)
		}
	}
	if reflect.TypeFor[mem.DeviceSpan]().ConvertibleTo(typ) {
		t.Errorf("DeviceSpan converts to StableSpan")
	}
}
