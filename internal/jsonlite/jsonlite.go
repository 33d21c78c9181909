// Package jsonlite encodes and decodes JSON as encoding/json does for plain
// data: structs with json tags (omitempty, omitzero, embedded structs),
// slices, arrays, maps with string or integer keys, pointers, strings,
// numbers and booleans.
//
// It exists for the planner's WebAssembly module, whose gzip budget is
// 1 MB: encoding/json costs that module about 130 KB gzip, this package
// about a tenth of it. The encoding is byte-identical to encoding/json's
// (HTML characters escaped, floats formatted alike, map keys sorted), and
// decoding accepts what encoding/json accepts for these types, matching
// object keys to fields exactly first and then case-insensitively. What it
// does not support — Marshaler, TextMarshaler and Unmarshaler methods,
// []byte as base64, the ",string" option, channels and functions — is an
// error, never a silent difference. Native builds keep encoding/json; the
// package's tests hold the two to the same output.
package jsonlite

import (
	"reflect"
	"strconv"
)

// maxDepth is how deeply values may nest, as in encoding/json.
const maxDepth = 10000

// Marshal returns the JSON encoding of v, as json.Marshal does.
func Marshal(v any) ([]byte, error) {
	e := encoder{}
	if err := e.value(reflect.ValueOf(v), 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// MarshalIndent is like Marshal but indents the output, as
// json.MarshalIndent does: each element on a new line starting with
// prefix and one copy of indent per level of nesting.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	e := encoder{prefix: prefix, indent: indent, pretty: true}
	if err := e.value(reflect.ValueOf(v), 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// Unmarshal decodes the JSON document data into the value v points to, as
// json.Unmarshal does. Object keys that match no field are ignored.
func Unmarshal(data []byte, v any) error {
	return decode(data, v, false)
}

// UnmarshalStrict is like Unmarshal but an object key that matches no field
// is an error, as with json.Decoder's DisallowUnknownFields.
func UnmarshalStrict(data []byte, v any) error {
	return decode(data, v, true)
}

// An Error is a JSON document that does not decode, or a value that does
// not encode. Its message reads as encoding/json's for the same fault.
type Error struct {
	Msg    string // as encoding/json words it: "json: " leads all but syntax errors
	Offset int    // byte offset in the document, or -1
}

func (e *Error) Error() string { return e.Msg }

func errorf(off int, parts ...string) *Error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return &Error{Msg: string(b), Offset: off}
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
