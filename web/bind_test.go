package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/vramplan/vramplan/templates"
	"github.com/vramplan/vramplan/web/calc"
	"github.com/vramplan/vramplan/web/internal/viewschema"
)

// This file holds the pages' bindings to the view (static/bind.js) to
// what the server rendered: for every element with a data-v binding and
// every data-list, the paths are calc.View's, and the value the browser's
// painter would write is the one the server wrote, so the first repaint
// changes nothing and the two renderings cannot drift. The lists'
// prototypes and <vram-calculator>'s shadow root are held to the schema.

var (
	schema     = viewschema.Of(reflect.TypeFor[calc.View]())
	gpusSchema = viewschema.Of(reflect.TypeFor[calc.GPUsView]()) // the "Which GPUs" table's
)

// bindQueries are states that between them show every part of the result.
var bindQueries = []string{
	b1Query, nofitQuery,
	"model=llama-3.3-70b-instruct-fp8&gpu=est-h100-sxm-linux&engine=vllm&tp=2&len=16384",
	"model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192&pp=2&ts=3,1",
	"model=qwen3-8b-q8_0&gpu=est-rtx4090-linux&engine=llama.cpp&len=32768",
	"model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=64&len=131072",
}

func TestBindings(t *testing.T) {
	for _, q := range bindQueries {
		for _, path := range []string{"/", "/embed"} {
			doc := page(t, path+"?"+q, http.StatusOK)
			rec := get(t, "/api/view?"+q)
			var v any
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			b := binder{t: t, where: path + "?" + q}
			b.scope(doc.Find("#calc"), v, schema)
			b.protos(doc.Find("#calc"), schema)
			var table any
			if err := json.Unmarshal(get(t, "/api/gpus?"+q).Body.Bytes(), &table); err != nil {
				t.Fatalf("%s: /api/gpus: %v", q, err)
			}
			if doc.Find("#gpus").Length() != 1 {
				t.Fatalf("%s%s: no #gpus table", path, q)
			}
			b.scope(doc.Find("#gpus"), table, gpusSchema)
			b.protos(doc.Find("#gpus"), gpusSchema)
		}
	}
}

func TestComponentBindings(t *testing.T) {
	var buf bytes.Buffer
	if err := templates.Component().Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b := binder{t: t, where: "<vram-calculator>", pathsOnly: true}
	for _, part := range []struct {
		sel string
		n   *viewschema.Node
	}{{".plan", schema}, {".gpus-view", gpusSchema}} {
		if doc.Find(part.sel).Length() != 1 {
			t.Fatalf("<vram-calculator> has no %s", part.sel)
		}
		b.scope(doc.Find(part.sel), nil, part.n)
		b.protos(doc.Find(part.sel), part.n)
	}
	if n := doc.Find("[data-v]").Length() - doc.Find(".plan [data-v], .gpus-view [data-v], template [data-v]").Length(); n != 0 {
		t.Errorf("<vram-calculator> has %d bindings outside .plan, .gpus-view and the prototypes: it paints only those two", n)
	}
}

// TestBindingsFailOnDrift checks that the test sees a drift: a binding
// whose value the server did not render, and a key the view lacks.
func TestBindingsFailOnDrift(t *testing.T) {
	for _, html := range []string{`<p data-v="text={verdict}">Fits.</p>`, `<p data-v="text={verdikt}"></p>`,
		`<ul data-list="warnings" data-proto="proto-warning" data-shape="2"><li data-v="text={.}">a</li></ul>`} {
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader("<main id=calc>" + html + "</main>"))
		r := &recorder{TB: t}
		b := binder{t: r, where: html}
		b.scope(doc.Find("#calc"), map[string]any{"verdict": "Does not fit.", "warnings": []any{"a"}}, schema)
		if !r.failed {
			t.Errorf("%s: no failure", html)
		}
	}
}

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

type binder struct {
	t         testing.TB
	where     string
	pathsOnly bool // a prototype or the component: no values to compare
}

type binding struct {
	target string
	parts  []part
	not    bool
}

type part struct{ text, path string }

// parse reads a data-v attribute as bind.js parses it.
func parse(attr string) []binding {
	var out []binding
	for _, b := range strings.Split(attr, ";") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		target, tmpl, _ := strings.Cut(b, "=")
		bd := binding{target: strings.TrimSpace(target)}
		if strings.HasPrefix(tmpl, "!{") && strings.HasSuffix(tmpl, "}") && !strings.Contains(tmpl[2:], "{") {
			bd.not, tmpl = true, tmpl[1:]
		}
		for tmpl != "" {
			i := strings.IndexByte(tmpl, '{')
			if i < 0 {
				bd.parts = append(bd.parts, part{text: tmpl})
				break
			}
			if i > 0 {
				bd.parts = append(bd.parts, part{text: tmpl[:i]})
			}
			j := strings.IndexByte(tmpl, '}')
			bd.parts = append(bd.parts, part{path: tmpl[i+1 : j]})
			tmpl = tmpl[j+1:]
		}
		out = append(out, bd)
	}
	return out
}

// scope checks the bindings under sel against data, whose schema is n.
func (b *binder) scope(sel *goquery.Selection, data any, n *viewschema.Node) {
	b.element(sel, data, n)
	sel.Children().Each(func(_ int, c *goquery.Selection) { b.visit(c, data, n) })
}

func (b *binder) visit(sel *goquery.Selection, data any, n *viewschema.Node) {
	if goquery.NodeName(sel) == "template" {
		return
	}
	b.element(sel, data, n)
	if path, ok := sel.Attr("data-list"); ok {
		b.list(sel, path, data, n)
		return
	}
	sel.Children().Each(func(_ int, c *goquery.Selection) { b.visit(c, data, n) })
}

func (b *binder) element(sel *goquery.Selection, data any, n *viewschema.Node) {
	attr, ok := sel.Attr("data-v")
	if !ok {
		return
	}
	for _, bd := range parse(attr) {
		ok := true
		for _, p := range bd.parts {
			if p.path != "" {
				if _, err := n.Lookup(p.path); err != nil {
					b.t.Errorf("%s: %s: %v", b.where, attr, err)
					ok = false
				}
			}
		}
		if !ok || b.pathsOnly {
			continue
		}
		if got, want := rendered(sel, bd.target), b.value(bd, data); got != want {
			b.t.Errorf("%s: <%s %s>: %s is %q, the binding writes %q", b.where, goquery.NodeName(sel), attr, bd.target, got, want)
		}
	}
}

// list checks a list: its elements' schema, the prototype it names, and
// each child against its element of the view.
func (b *binder) list(sel *goquery.Selection, path string, data any, n *viewschema.Node) {
	ln, err := n.Lookup(path)
	if err != nil || ln.Kind != "list" {
		b.t.Errorf("%s: data-list=%q: not a list of the view (%v)", b.where, path, err)
		return
	}
	if b.pathsOnly { // the component's lists are empty
		sel.Children().Each(func(_ int, c *goquery.Selection) { b.scope(c, nil, ln.Elem) })
		return
	}
	items, _ := at(data, path).([]any)
	kids := sel.Children()
	if kids.Length() != len(items) {
		b.t.Errorf("%s: data-list=%q: %d rendered, the view has %d", b.where, path, kids.Length(), len(items))
		return
	}
	if got, want := sel.AttrOr("data-shape", ""), shape(sel.AttrOr("data-key", ""), items); got != want {
		b.t.Errorf("%s: data-list=%q: data-shape %q, bind.js computes %q", b.where, path, got, want)
	}
	kids.Each(func(i int, c *goquery.Selection) { b.scope(c, items[i], ln.Elem) })
}

// protos checks the prototype of each list under scope, whose schema is
// n, against the list's element.
func (b *binder) protos(scope *goquery.Selection, n *viewschema.Node) {
	doc := scope.Closest("html")
	scope.Find("[data-list]").Each(func(_ int, l *goquery.Selection) {
		id := l.AttrOr("data-proto", "")
		proto := doc.Find("template#" + id)
		if proto.Length() != 1 {
			b.t.Errorf("%s: data-list=%q names prototype %q, found %d", b.where, l.AttrOr("data-list", ""), id, proto.Length())
			return
		}
		n, err := n.Lookup(l.AttrOr("data-list", "")) // a rank's own bars are the view's Bar too
		if err != nil {
			return // reported by scope
		}
		root := proto.Children().First()
		if goquery.NodeName(root) == "svg" {
			root = root.Children().First()
		}
		pb := binder{t: b.t, where: b.where + " #" + id, pathsOnly: true}
		pb.scope(root, nil, n.Elem)
	})
}

func (b *binder) value(bd binding, data any) string {
	if len(bd.parts) == 1 && bd.parts[0].path != "" {
		v := at(data, bd.parts[0].path)
		if bd.not {
			v = !truthy(v)
		}
		if bd.target == "hidden" || strings.HasPrefix(bd.target, ".") {
			return formatBool(truthy(v))
		}
		return format(v)
	}
	var out strings.Builder
	for _, p := range bd.parts {
		if p.path == "" {
			out.WriteString(p.text)
			continue
		}
		s := format(at(data, p.path))
		if s == "" {
			return ""
		}
		out.WriteString(s)
	}
	return out.String()
}

// rendered is what the server wrote for a binding's target.
func rendered(sel *goquery.Selection, target string) string {
	switch {
	case target == "text":
		return sel.Text()
	case target == "hidden":
		_, ok := sel.Attr("hidden")
		return formatBool(ok)
	case strings.HasPrefix(target, "."):
		return formatBool(sel.HasClass(target[1:]))
	case strings.HasPrefix(target, "style."):
		for _, decl := range strings.Split(sel.AttrOr("style", ""), ";") {
			if k, v, ok := strings.Cut(decl, ":"); ok && strings.TrimSpace(k) == target[6:] {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	return sel.AttrOr(target, "")
}

func at(data any, path string) any {
	if path == "." {
		return data
	}
	for _, k := range strings.Split(path, ".") {
		m, _ := data.(map[string]any)
		data = m[k]
	}
	return data
}

func shape(key string, items []any) string {
	if key == "" {
		return strconv.Itoa(len(items))
	}
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = format(at(it, key))
	}
	return strings.Join(keys, "\n")
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	}
	return true
}

func format(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return calc.Group(int64(x))
	case bool:
		return formatBool(x)
	case string:
		return x
	}
	return "[object]"
}

func formatBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
