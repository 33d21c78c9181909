// Package viewschema describes the JSON of calc.View, the one document the
// calculator's page, its embed and <vram-calculator> paint, as a tree of
// its keys. The page's script is checked against it: go generate
// ./web/static writes it as web/static/view.js, whose every key the script's
// binder (bind.js) looks a path up in before it reads it, and the handler
// tests check each binding the templates render against it.
package viewschema

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// A Node is one value of the document: a scalar ("string", "number",
// "bool"), an object with its keys, or a list of Elem.
type Node struct {
	Kind string           // "string", "number", "bool", "object" or "list"
	Keys map[string]*Node // an object's members
	Elem *Node            // a list's elements
}

// Of returns the schema of t's JSON as encoding/json writes it.
func Of(t reflect.Type) *Node {
	switch t.Kind() {
	case reflect.Pointer:
		return Of(t.Elem())
	case reflect.String:
		return &Node{Kind: "string"}
	case reflect.Bool:
		return &Node{Kind: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return &Node{Kind: "number"}
	case reflect.Slice, reflect.Array:
		return &Node{Kind: "list", Elem: Of(t.Elem())}
	case reflect.Struct:
		return object(t)
	}
	panic(fmt.Sprintf("viewschema: %v has no JSON schema", t))
}

func object(t reflect.Type) *Node {
	n := &Node{Kind: "object", Keys: map[string]*Node{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		n.Keys[name] = Of(f.Type)
	}
	return n
}

// Lookup returns the node a dotted path names under n ("chart.y_ticks",
// "." for n itself), or an error naming the first key n lacks.
func (n *Node) Lookup(path string) (*Node, error) {
	if path == "." {
		return n, nil
	}
	at := n
	for _, k := range strings.Split(path, ".") {
		if at.Kind != "object" || at.Keys[k] == nil {
			return nil, fmt.Errorf("the view has no key %q (in %q)", k, path)
		}
		at = at.Keys[k]
	}
	return at, nil
}

// JS returns n as a JavaScript literal: an object of its keys, a list as
// a one-element array of its element, a scalar as its kind's name.
func (n *Node) JS() string {
	var b strings.Builder
	n.write(&b, "")
	return b.String()
}

func (n *Node) write(b *strings.Builder, indent string) {
	switch n.Kind {
	case "object":
		keys := make([]string, 0, len(n.Keys))
		for k := range n.Keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{\n")
		for _, k := range keys {
			b.WriteString(indent + "  " + k + ": ")
			n.Keys[k].write(b, indent+"  ")
			b.WriteString(",\n")
		}
		b.WriteString(indent + "}")
	case "list":
		b.WriteString("[")
		n.Elem.write(b, indent)
		b.WriteString("]")
	default:
		b.WriteString("'" + n.Kind + "'")
	}
}
