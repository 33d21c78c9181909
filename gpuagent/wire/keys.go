package wire

// This file refuses two things encoding/json lets through without a word:
// an object that names a key twice (it keeps the last, so
// {"op":"free","op":"admit"} is an admission) and a key that matches its
// field only when case is ignored (it takes "LEASE" for "lease", and
// "TTL_MS" for "ttl_ms"). A body that means one thing to the agent and
// another to a proxy, a log reader or a second decoder is refused instead,
// as the planner refuses a document that repeats a key.
//
// The check walks a body Unmarshal has already decoded, so the JSON is
// well formed and every key of a struct matches one of its fields
// case-insensitively; the walk follows the target's type to know which
// fields each object may name exactly.

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// checkKeys returns the first key of data that repeats within its object,
// or that names a field of t in another case; data decoded into a value
// of type t without error.
func checkKeys(data []byte, t reflect.Type) *Error {
	s := keyScan{data: data}
	return s.value(shapeOf(t))
}

// A shape is what the walk needs of a type: the exact JSON names of a
// struct's fields and their shapes, or the shape of a list's elements.
// A nil shape checks repeated keys only.
type shape struct {
	fields map[string]*shape // struct: field name -> its shape
	names  []string          // struct: the names, for the message
	elem   *shape            // slice or array
}

// shapes holds every shape built whole; one goroutine at a time builds
// (shapesMu), so none reads a struct's shape before its fields are in.
var (
	shapes   sync.Map // reflect.Type -> *shape
	shapesMu sync.Mutex
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// shapeOf returns t's shape, built once per type.
func shapeOf(t reflect.Type) *shape {
	t, mine := own(t)
	if !mine {
		return nil
	}
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	shapesMu.Lock()
	defer shapesMu.Unlock()
	building := map[reflect.Type]*shape{}
	sh := build(t, building)
	for t, sh := range building {
		shapes.Store(t, sh)
	}
	return sh
}

// own returns the type a value of t decodes as, and whether its keys are
// the walk's to check: not those of a type that decodes itself (IDs).
func own(t reflect.Type) (reflect.Type, bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, t != nil && !reflect.PointerTo(t).Implements(unmarshalerType)
}

// build makes t's shape, and those of the types in it, into building.
func build(t reflect.Type, building map[reflect.Type]*shape) *shape {
	t, mine := own(t)
	if !mine {
		return nil
	}
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	if sh, ok := building[t]; ok {
		return sh // a type that contains itself
	}
	sh := &shape{}
	building[t] = sh
	switch t.Kind() {
	case reflect.Struct:
		sh.fields = map[string]*shape{}
		sh.addFields(t, building)
	case reflect.Slice, reflect.Array:
		sh.elem = build(t.Elem(), building)
	default:
		building[t] = nil
		return nil
	}
	return sh
}

// addFields adds the fields of struct type t, and those of the structs it
// embeds without a name, as encoding/json promotes them.
func (sh *shape) addFields(t reflect.Type, building map[reflect.Type]*shape) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			sh.addFields(f.Type, building)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		sh.fields[name] = build(f.Type, building)
		sh.names = append(sh.names, name)
	}
}

// field returns the field key names in sh, and whether it names one
// exactly; for a key that names none, the field it matched without case.
func (sh *shape) field(key []byte) (*shape, string, bool) {
	if f, ok := sh.fields[string(key)]; ok {
		return f, "", true
	}
	for _, n := range sh.names {
		if strings.EqualFold(n, string(key)) {
			return nil, n, false
		}
	}
	return nil, "", false
}

// keyScan walks one well-formed JSON document.
type keyScan struct {
	data []byte
	i    int
}

func (s *keyScan) value(sh *shape) *Error {
	s.space()
	switch s.peek() {
	case '{':
		return s.object(sh)
	case '[':
		return s.array(sh)
	case '"':
		s.str()
	default: // a number, true, false or null
		for s.i < len(s.data) && strings.IndexByte(",]} \t\r\n", s.data[s.i]) < 0 {
			s.i++
		}
	}
	return nil
}

// seenKeys is how many keys of one object are compared pairwise before
// they go into a map.
const seenKeys = 16

func (s *keyScan) object(sh *shape) *Error {
	s.i++ // {
	var keys keySet
	for at := s.i; !s.closes('}'); at = s.i {
		inner, err := keys.add(unquoteKey(s.str()), sh)
		if err != nil {
			return err
		}
		s.space()
		s.i++ // :
		if err := s.value(inner); err != nil {
			return err
		}
		if !s.more(at) {
			return nil
		}
	}
	return nil
}

func (s *keyScan) array(sh *shape) *Error {
	s.i++ // [
	var elem *shape
	if sh != nil {
		elem = sh.elem
	}
	for at := s.i; !s.closes(']'); at = s.i {
		if err := s.value(elem); err != nil {
			return err
		}
		if !s.more(at) {
			return nil
		}
	}
	return nil
}

// closes skips space and reports whether the object or list ends here,
// stepping past its closing byte.
func (s *keyScan) closes(end byte) bool {
	s.space()
	if c := s.peek(); c == end || c == 0 {
		s.i++
		return true
	}
	return false
}

// more skips the comma after a member and reports whether the walk has
// moved past at, the member's start: one that stands still is not on
// JSON, which the decoder would have refused.
func (s *keyScan) more(at int) bool {
	s.space()
	if s.peek() == ',' {
		s.i++
	}
	return s.i != at
}

// A keySet is the keys one object has named so far: the first few
// compared pairwise, the rest in a map.
type keySet struct {
	few  [seenKeys][]byte
	n    int
	many map[string]struct{}
}

// add records key and returns the shape of its value in an object of
// shape sh, or why the key is refused.
func (ks *keySet) add(key []byte, sh *shape) (*shape, *Error) {
	if ks.has(key) {
		return nil, Errorf(CodeBadRequest, "decoding: key %.64q appears twice in one object", key)
	}
	if ks.n < seenKeys {
		ks.few[ks.n] = key
		ks.n++
	} else {
		if ks.many == nil {
			ks.many = map[string]struct{}{}
		}
		ks.many[string(key)] = struct{}{}
	}
	if sh == nil || sh.fields == nil {
		return nil, nil
	}
	f, want, ok := sh.field(key)
	if !ok {
		return nil, Errorf(CodeBadRequest, "decoding: key %.64q: keys are matched exactly, and the field is %q", key, want)
	}
	return f, nil
}

func (ks *keySet) has(key []byte) bool {
	for _, k := range ks.few[:ks.n] {
		if string(k) == string(key) {
			return true
		}
	}
	_, ok := ks.many[string(key)]
	return ok
}

// str skips the string at s.i and returns it, quotes included.
func (s *keyScan) str() []byte {
	start := s.i
	for s.i++; s.i < len(s.data) && s.data[s.i] != '"'; s.i++ {
		if s.data[s.i] == '\\' {
			s.i++
		}
	}
	s.i++
	return s.data[start:min(s.i, len(s.data))]
}

// peek returns the byte at s.i, or 0 at the end.
func (s *keyScan) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

func (s *keyScan) space() {
	for s.i < len(s.data) && strings.IndexByte(" \t\r\n", s.data[s.i]) >= 0 {
		s.i++
	}
}

// unquoteKey returns the key a quoted JSON string holds, unescaped.
func unquoteKey(q []byte) []byte {
	if len(q) < 2 {
		return nil
	}
	for _, c := range q {
		if c == '\\' {
			var k string
			if json.Unmarshal(q, &k) == nil {
				return []byte(k)
			}
			break
		}
	}
	return q[1 : len(q)-1]
}
