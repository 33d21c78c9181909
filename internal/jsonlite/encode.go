package jsonlite

import (
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// encoder appends one value's encoding to buf; pretty indents it as
// json.MarshalIndent would.
type encoder struct {
	buf            []byte
	prefix, indent string
	pretty         bool
	ptrs           int // pointers and interfaces being followed, against cycles
}

func (e *encoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errorf(-1, "json: exceeded max depth")
	}
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	switch v.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return e.float(v.Float(), v.Type().Bits())
	case reflect.String:
		e.buf = appendString(e.buf, v.String())
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if e.ptrs++; e.ptrs > maxDepth {
			return errorf(-1, "json: unsupported value: encountered a cycle via ", v.Type().String())
		}
		err := e.value(v.Elem(), depth)
		e.ptrs--
		return err
	case reflect.Slice:
		return e.slice(v, depth)
	case reflect.Array:
		return e.array(v, depth)
	case reflect.Struct:
		return e.object(v, depth)
	default:
		return errorf(-1, "json: unsupported type: ", v.Type().String())
	}
	return nil
}

// float appends f as encoding/json does: the shortest decimal that reads
// back as f, in exponent form below 1e-6 and from 1e21.
func (e *encoder) float(f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return errorf(-1, "json: unsupported value: ", strconv.FormatFloat(f, 'g', -1, bits))
	}
	e.buf = appendFloat(e.buf, f, bits)
	return nil
}

func appendFloat(b []byte, f float64, bits int) []byte {
	format, abs := byte('f'), math.Abs(f)
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

func (e *encoder) slice(v reflect.Value, depth int) error {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return errorf(-1, "json: unsupported type: ", v.Type().String())
	}
	return e.array(v, depth)
}

func (e *encoder) array(v reflect.Value, depth int) error {
	e.buf = append(e.buf, '[')
	n := v.Len()
	for i := 0; i < n; i++ {
		e.separate(i, depth+1)
		if err := e.value(v.Index(i), depth+1); err != nil {
			return err
		}
	}
	e.close(n > 0, depth, ']')
	return nil
}

// separate starts the i-th element of a container at depth.
func (e *encoder) separate(i, depth int) {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
	if e.pretty {
		e.newline(depth)
	}
}

func (e *encoder) close(any bool, depth int, c byte) {
	if any && e.pretty {
		e.newline(depth)
	}
	e.buf = append(e.buf, c)
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	e.buf = append(e.buf, e.prefix...)
	for range depth {
		e.buf = append(e.buf, e.indent...)
	}
}

func (e *encoder) key(quoted string) {
	e.buf = append(e.buf, quoted...)
	if e.pretty {
		e.buf = append(e.buf, ' ')
	}
}

func (e *encoder) object(v reflect.Value, depth int) error {
	e.buf = append(e.buf, '{')
	n := 0
	for i := range fieldsOf(v.Type()) {
		f := &fieldsOf(v.Type())[i]
		fv, ok := fieldValue(v, f.index)
		if !ok || f.omitEmpty && empty(fv) || f.omitZero && zero(fv) {
			continue
		}
		e.separate(n, depth+1)
		n++
		e.key(f.quoted)
		if err := e.value(fv, depth+1); err != nil {
			return err
		}
	}
	e.close(n > 0, depth, '}')
	return nil
}

// fieldValue follows index from struct v; ok is false when it passes a nil
// embedded pointer.
func fieldValue(v reflect.Value, index []int) (reflect.Value, bool) {
	for k, i := range index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// empty reports whether omitempty drops v.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface{ IsZero() bool }

// zero reports whether omitzero drops v: its IsZero method says so, or it
// is its type's zero value. An IsZero method with a pointer receiver is not
// consulted (encoding/json consults it for addressable values); the tests
// check that no type the planner encodes has one.
func zero(v reflect.Value) bool {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return true
	}
	if v.CanInterface() {
		if z, ok := v.Interface().(isZeroer); ok {
			return z.IsZero()
		}
	}
	return v.IsZero()
}

const hex = "0123456789abcdef"

// appendString appends s quoted as Marshal quotes a string: <, > and &
// escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			if c == utf8.RuneError {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			}
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscape(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
}
