package jsonlite

import (
	"reflect"
	"strings"
	"sync"
)

// field is one JSON member of a struct type: its name and where it lies.
type field struct {
	name      string
	quoted    string // name as an encoded key, quotes and colon included
	index     []int
	omitEmpty bool
	omitZero  bool
	tagged    bool
}

var fieldCache struct {
	sync.Mutex
	m map[reflect.Type][]field
}

// fieldsOf returns the JSON members of struct type t in encoding order,
// by encoding/json's rules: exported fields, named by their tags, the
// fields of embedded structs promoted unless a shallower field has the
// same name; of two at the same depth a tagged one wins, and two alike
// cancel out.
func fieldsOf(t reflect.Type) []field {
	fieldCache.Lock()
	defer fieldCache.Unlock()
	if fs, ok := fieldCache.m[t]; ok {
		return fs
	}
	fs := byIndex(dominant(collect(t)))
	if fieldCache.m == nil {
		fieldCache.m = map[reflect.Type][]field{}
	}
	fieldCache.m[t] = fs
	return fs
}

// collect walks t breadth-first, embedded structs after the fields beside
// them, as encoding/json's typeFields does.
func collect(t reflect.Type) []field {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var out []field
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		cur := next
		next = nil
		for _, l := range cur {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				f, embed, ok := member(sf, l.index, i)
				if !ok {
					continue
				}
				if embed != nil {
					next = append(next, level{embed, f.index})
					continue
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// member describes struct field sf; embed is the struct type to descend
// into when sf is an untagged embedded struct.
func member(sf reflect.StructField, parent []int, i int) (f field, embed reflect.Type, ok bool) {
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if sf.Anonymous {
		if !sf.IsExported() && ft.Kind() != reflect.Struct {
			return f, nil, false
		}
	} else if !sf.IsExported() {
		return f, nil, false
	}
	tag := jsonTag(string(sf.Tag))
	if tag == "-" {
		return f, nil, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !validName(name) {
		name = ""
	}
	f.index = append(append(make([]int, 0, len(parent)+1), parent...), i)
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return f, ft, true
	}
	f.tagged = name != ""
	if name == "" {
		name = sf.Name
	}
	f.name = name
	f.quoted = string(appendString(nil, name)) + ":"
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		f.omitEmpty = f.omitEmpty || o == "omitempty"
		f.omitZero = f.omitZero || o == "omitzero"
	}
	return f, nil, true
}

// validName reports whether a tag's name is one encoding/json accepts.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c > 0x7f:
		default:
			return false
		}
	}
	return true
}

// dominant keeps, of the fields sharing a name, the shallowest; at equal
// depth the only tagged one; otherwise none. Order is kept.
func dominant(fs []field) []field {
	out := fs[:0:0]
	for i, f := range fs {
		if keep(fs, i) {
			out = append(out, f)
		}
	}
	return out
}

func keep(fs []field, i int) bool {
	f := fs[i]
	for j, g := range fs {
		if j == i || g.name != f.name {
			continue
		}
		switch {
		case len(g.index) < len(f.index):
			return false
		case len(g.index) > len(f.index):
		case g.tagged && !f.tagged:
			return false
		case g.tagged == f.tagged:
			return false
		}
	}
	return true
}

// lookup returns the field an object key names: an exact match, else a
// case-insensitive one, as encoding/json matches keys.
func lookup(fs []field, key string) *field {
	for i := range fs {
		if fs[i].name == key {
			return &fs[i]
		}
	}
	for i := range fs {
		if strings.EqualFold(fs[i].name, key) {
			return &fs[i]
		}
	}
	return nil
}

// byIndex sorts fs into the order of their fields in the struct, embedded
// structs' members where the embedded field is (an insertion sort: structs
// are small).
func byIndex(fs []field) []field {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && before(fs[j].index, fs[j-1].index); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	return fs
}

func before(a, b []int) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// jsonTag returns the value of the json key of struct tag tag, as
// reflect.StructTag.Get does for a value without escapes (reflect's own
// would link strconv's unquoting into the module); a value with one is
// treated as absent.
func jsonTag(tag string) string {
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return ""
		}
		name, rest := tag[:i], tag[i+2:]
		end, escaped := 0, false
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				escaped = true
				end++
			}
			end++
		}
		if end >= len(rest) {
			return ""
		}
		if name == "json" {
			if escaped {
				return ""
			}
			return rest[:end]
		}
		tag = rest[end+1:]
	}
	return ""
}
