package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"unicode"
)

// engine is one registry entry: its stem (llamaCpp for &llamaCppProfile)
// and the Serving field, type and JSON key of its options.
type engine struct {
	stem, name, field, options, key string
}

// method is one method of the planner's rules interface.
type method struct {
	name, params, args, results string
}

// Generate returns the generated files by their path relative to the
// planner directory dir.
func Generate(dir string) (map[string][]byte, error) {
	fset := token.NewFileSet()
	pkg, err := parsePackage(fset, dir)
	if err != nil {
		return nil, err
	}
	stems, err := registryStems(pkg)
	if err != nil {
		return nil, err
	}
	engines, err := withOptions(pkg, stems)
	if err != nil {
		return nil, err
	}
	if err := withNames(fset, pkg, engines); err != nil {
		return nil, err
	}
	methods, err := rulesMethods(fset, pkg)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, src := range map[string]string{
		dispatchFile:           plannerSource(engines, methods),
		"cmdline/dialects.go":  listSource("cmdline", "dialects", "dialect", "Dialect", "the command-line dialect of each registered engine", engines),
		"enginelog/readers.go": listSource("enginelog", "readers", "logReader", "Log", "the log reader of each registered engine", engines),
		"enginelog/facts.go":   listSource("enginelog", "facts", "logFacts", "Facts", "what is known of each registered engine's log without reading one", engines),
		"enginelog/inputs.go":  inputsSource(engines),
	} {
		b, err := format.Source([]byte(src))
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", name, err, src)
		}
		out[name] = b
	}
	return out, nil
}

const dispatchFile = "engine_dispatch.go"

// parsePackage parses the planner's Go files in dir but its tests and the
// file this command writes.
func parsePackage(fset *token.FileSet, dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || filepath.Base(n) == dispatchFile {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "planner" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no package planner", dir)
	}
	return files, nil
}

// registryStems reads the entries of `var registry = [...]*Profile{...}`.
func registryStems(pkg []*ast.File) ([]string, error) {
	var stems []string
	found := false
	for _, f := range pkg {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "registry" || len(vs.Values) != 1 {
				return true
			}
			found = true
			lit, _ := vs.Values[0].(*ast.CompositeLit)
			if lit == nil {
				return false
			}
			for _, e := range lit.Elts {
				u, ok := e.(*ast.UnaryExpr)
				var name *ast.Ident
				if ok && u.Op == token.AND {
					name, _ = u.X.(*ast.Ident)
				}
				if name == nil || !strings.HasSuffix(name.Name, "Profile") || name.Name == "Profile" {
					stems = append(stems, "") // reported below
					continue
				}
				stems = append(stems, strings.TrimSuffix(name.Name, "Profile"))
			}
			return false
		})
	}
	if !found {
		return nil, fmt.Errorf("no var registry in package planner")
	}
	for i, s := range stems {
		if s == "" {
			return nil, fmt.Errorf("registry entry %d is not &<stem>Profile", i)
		}
	}
	if len(stems) == 0 {
		return nil, fmt.Errorf("the registry is empty")
	}
	return stems, nil
}

// withOptions finds each stem's options type: the stem and "Options" in
// any case (VLLMOptions for vllm).
func withOptions(pkg []*ast.File, stems []string) ([]engine, error) {
	types := map[string]string{}
	for _, f := range pkg {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					name := s.(*ast.TypeSpec).Name.Name
					types[strings.ToLower(name)] = name
				}
			}
		}
	}
	var es []engine
	for _, s := range stems {
		opt, ok := types[strings.ToLower(s)+"options"]
		if !ok {
			return nil, fmt.Errorf("engine %s: no options type %sOptions (in any case)", s, s)
		}
		field := strings.TrimSuffix(opt, "Options")
		es = append(es, engine{stem: s, field: field, options: opt, key: snake(field)})
	}
	return es, nil
}

// withNames finds each engine's name: the Name field of the literal that
// declares <stem>Profile, a constant.
func withNames(fset *token.FileSet, pkg []*ast.File, es []engine) error {
	for i := range es {
		e := &es[i]
		for _, f := range pkg {
			ast.Inspect(f, func(n ast.Node) bool {
				vs, ok := n.(*ast.ValueSpec)
				if !ok || len(vs.Names) != 1 || vs.Names[0].Name != e.stem+"Profile" || len(vs.Values) != 1 {
					return true
				}
				if lit, ok := vs.Values[0].(*ast.CompositeLit); ok {
					for _, el := range lit.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" {
							var b bytes.Buffer
							printer.Fprint(&b, fset, kv.Value)
							e.name = b.String()
						}
					}
				}
				return false
			})
		}
		if e.name == "" {
			return fmt.Errorf("engine %s: no var %sProfile = Profile{Name: ...}", e.stem, e.stem)
		}
	}
	return nil
}

// snake writes a Go name as a JSON key: LlamaCpp llama_cpp, VLLM vllm,
// SGLang sglang (an underscore where a capital follows a small letter).
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(s[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// rulesMethods reads the methods of `type rules interface`.
func rulesMethods(fset *token.FileSet, pkg []*ast.File) ([]method, error) {
	var it *ast.InterfaceType
	for _, f := range pkg {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "rules" {
				it, _ = ts.Type.(*ast.InterfaceType)
				return false
			}
			return true
		})
	}
	if it == nil {
		return nil, fmt.Errorf("no interface rules in package planner")
	}
	var ms []method
	for _, f := range it.Methods.List {
		ft, ok := f.Type.(*ast.FuncType)
		if !ok || len(f.Names) != 1 {
			return nil, fmt.Errorf("rules: only plain methods are generated")
		}
		m := method{name: f.Names[0].Name, params: fields(fset, ft.Params, true), args: argNames(ft.Params)}
		if strings.Contains(", "+m.args+",", ", prof,") {
			return nil, fmt.Errorf("rules.%s: a parameter named prof is the dispatch's receiver", m.name)
		}
		if ft.Results != nil {
			m.results = fields(fset, ft.Results, false)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func fields(fset *token.FileSet, fl *ast.FieldList, named bool) string {
	var parts []string
	for _, f := range fl.List {
		var t bytes.Buffer
		printer.Fprint(&t, fset, f.Type)
		if !named || len(f.Names) == 0 {
			for range max(len(f.Names), 1) {
				parts = append(parts, t.String())
			}
			continue
		}
		for _, n := range f.Names {
			parts = append(parts, n.Name+" "+t.String())
		}
	}
	s := strings.Join(parts, ", ")
	if !named && len(parts) > 1 {
		s = "(" + s + ")"
	}
	return s
}

func argNames(fl *ast.FieldList) string {
	var names []string
	for _, f := range fl.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return strings.Join(names, ", ")
}

const header = "// Code generated by planner/internal/enginegen from planner/engine_registry.go; DO NOT EDIT.\n\n"

func plannerSource(es []engine, ms []method) string {
	var b strings.Builder
	b.WriteString(header + "package planner\n\n")
	b.WriteString(`// Serving selects the engine profile of a plan and carries the options of
// that engine that change memory and have no field in Limits, one field
// for each registered engine. Only the selected engine's options are read;
// the others must be zero.
type Serving struct {
	Engine EngineName ` + "`json:\"engine,omitempty\"`\n" + `	// Version is the engine's release the plan follows ("0.6.3"), one of
	// the ranges its profile covers; "" is the newest range.
	Version string ` + "`json:\"version,omitempty\"`\n")
	for _, e := range es {
		fmt.Fprintf(&b, "\t%s %s `json:\"%s,omitzero\"`\n", e.field, e.options, e.key)
	}
	b.WriteString("}\n\n// Every registered engine's type has the methods of rules.\nvar _ = [...]rules{")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.stem + "{}")
	}
	b.WriteString("}\n\n")
	b.WriteString("// profileOf returns the registered profile named e, nil for the seed's engine\n" +
		"// and for a name not registered. It is not inlined: a plan calls it from\n" +
		"// many places, and inlined it costs the WebAssembly module a string switch at each.\n" +
		"//\n//go:noinline\nfunc profileOf(e EngineName) *Profile {\n\tswitch e {\n")
	for _, e := range es {
		fmt.Fprintf(&b, "\tcase %s:\n\t\treturn &%sProfile\n", e.name, e.stem)
	}
	b.WriteString("\t}\n\treturn nil\n}\n\n")
	b.WriteString("// optionsBesides returns the first registered profile other than p whose\n" +
		"// options s carries, or nil.\nfunc (s *Serving) optionsBesides(p *Profile) *Profile {\n")
	for _, e := range es {
		fmt.Fprintf(&b, "\tif p != &%sProfile && s.%s != (%s{}) {\n\t\treturn &%sProfile\n\t}\n", e.stem, e.field, e.options, e.stem)
	}
	b.WriteString("\treturn nil\n}\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "\n// %s calls the %s rule of prof's engine.\nfunc (prof *Profile) %s(%s) %s {\n\tswitch prof {\n", m.name, m.name, m.name, m.params, m.results)
		for _, e := range es {
			ret := ""
			if m.results != "" {
				ret = "return "
			}
			fmt.Fprintf(&b, "\tcase &%sProfile:\n\t\t%s%s{}.%s(%s)\n", e.stem, ret, e.stem, m.name, m.args)
			if m.results == "" {
				b.WriteString("\t\treturn\n")
			}
		}
		b.WriteString("\t}\n\tpanic(prof.unregistered())\n}\n")
	}
	return b.String()
}

// listSource writes a package's list of the registry's parts: for stem x
// the variable x+suffix of type typ.
func listSource(pkg, name, typ, suffix, what string, es []engine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%spackage %s\n\n// %s is %s, in the registry's order.\nvar %s = [...]*%s{\n", header, pkg, name, what, name, typ)
	for _, e := range es {
		fmt.Fprintf(&b, "\t&%s%s,\n", e.stem, suffix)
	}
	b.WriteString("}\n")
	return b.String()
}

// inputsSource is enginelog's inputOf: the input rule of each engine's log
// reader, named by the rule's own name (<stem>Input) so that a program
// that plans a log it did not read links no reader.
func inputsSource(es []engine) string {
	var b strings.Builder
	b.WriteString(header + "package enginelog\n\nimport \"github.com/vramplan/vramplan/planner\"\n\n" +
		"// inputOf returns the input rule of the log reader of engine e, or nil.\n" +
		"// It names each rule, not the reader, so that a program that plans a\n" +
		"// log it did not read (the planner's WebAssembly) links no reader.\n" +
		"func inputOf(e planner.EngineName) func(*Log, *planner.Input) error {\n\tswitch e {\n")
	for _, e := range es {
		fmt.Fprintf(&b, "\tcase planner.%s:\n\t\treturn %sInput\n", e.name, e.stem)
	}
	b.WriteString("\t}\n\treturn nil\n}\n")
	return b.String()
}
