package jsonlite

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder reads one document into a value. Like encoding/json it checks
// the whole document's syntax, so a syntax error wins over a type error,
// and it goes on past a value of the wrong type, reporting the first.
// An invalid reflect.Value is a sink: what is read into it is discarded.
type decoder struct {
	data   []byte
	i      int
	strict bool
	err    error        // the first type error or unknown field
	path   []string     // the object keys leading to the value being read
	owner  reflect.Type // the struct type whose field is being read
}

func decode(data []byte, v any, strict bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errorf(-1, "json: Unmarshal(non-pointer ", reflect.TypeOf(v).String(), ")")
	}
	d := decoder{data: data, strict: strict}
	if err := d.value(rv.Elem(), 0); err != nil {
		return err
	}
	d.space()
	if d.i < len(d.data) {
		return d.syntax("after top-level value")
	}
	return d.err
}

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// syntax is the error for the byte at d.i, in the context where.
func (d *decoder) syntax(where string) error {
	if d.i >= len(d.data) {
		return errorf(len(d.data), "unexpected end of JSON input")
	}
	return errorf(d.i, "invalid character ", quoteChar(d.data[d.i]), " ", where)
}

// mismatch records that a JSON value described by what cannot go into v.
func (d *decoder) mismatch(what string, t reflect.Type) {
	if d.err != nil {
		return
	}
	msg := "cannot unmarshal " + what + " into Go value of type " + t.String()
	if d.owner != nil || len(d.path) > 0 {
		name := ""
		if d.owner != nil {
			name = d.owner.Name()
		}
		msg = "cannot unmarshal " + what + " into Go struct field " + name + "." + strings.Join(d.path, ".") + " of type " + t.String()
	}
	d.err = errorf(d.i, "json: ", msg)
}

func (d *decoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errorf(d.i, "exceeded max depth")
	}
	d.space()
	if d.i >= len(d.data) {
		return d.syntax("")
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object(v, depth)
	case c == '[':
		return d.array(v, depth)
	case c == '"':
		s, err := d.str()
		if err == nil {
			d.setString(v, s)
		}
		return err
	case c == 't':
		return d.literal("true", v)
	case c == 'f':
		return d.literal("false", v)
	case c == 'n':
		return d.literal("null", v)
	case c == '-' || c >= '0' && c <= '9':
		s, err := d.number()
		if err == nil {
			d.setNumber(v, s)
		}
		return err
	}
	return d.syntax("looking for beginning of value")
}

// indirect follows pointers from v, allocating nil ones.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

func (d *decoder) literal(word string, v reflect.Value) error {
	for k := 0; k < len(word); k++ {
		if d.i >= len(d.data) || d.data[d.i] != word[k] {
			return d.syntax("in literal " + word + " (expecting " + quoteChar(word[k]) + ")")
		}
		d.i++
	}
	if word == "null" {
		for v.IsValid() && v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Pointer {
			v = v.Elem()
		}
		switch {
		case !v.IsValid():
		case v.Kind() == reflect.Pointer, v.Kind() == reflect.Interface, v.Kind() == reflect.Slice:
			v.Set(reflect.Zero(v.Type()))
		}
		return nil
	}
	v = indirect(v)
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.Bool:
		v.SetBool(word == "true")
	default:
		d.mismatch("bool", v.Type())
	}
	return nil
}

func (d *decoder) setString(v reflect.Value, s string) {
	v = indirect(v)
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.String:
		v.SetString(s)
	default:
		d.mismatch("string", v.Type())
	}
}

func (d *decoder) setNumber(v reflect.Value, s string) {
	v = indirect(v)
	if !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			d.mismatch("number "+s, v.Type())
			return
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			d.mismatch("number "+s, v.Type())
			return
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			d.mismatch("number "+s, v.Type())
			return
		}
		v.SetFloat(f)
	default:
		d.mismatch("number", v.Type())
	}
}

// number reads a number literal by JSON's grammar.
func (d *decoder) number() (string, error) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.data) && d.data[d.i] == '0' {
		d.i++
	} else if !d.digits() {
		return "", d.syntax("in numeric literal")
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if !d.digits() {
			return "", d.syntax("after decimal point in numeric literal")
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return "", d.syntax("in exponent of numeric literal")
		}
	}
	return string(d.data[start:d.i]), nil
}

// digits reads one or more decimal digits and reports whether it did.
func (d *decoder) digits() bool {
	start := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// str reads a string literal, unescaping it; invalid UTF-8 and unpaired
// surrogates become U+FFFD, as in encoding/json.
func (d *decoder) str() (string, error) {
	d.i++
	start := d.i
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := string(d.data[start:d.i])
			d.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	return d.slowStr(append([]byte(nil), d.data[start:d.i]...))
}

func (d *decoder) slowStr(b []byte) (string, error) {
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), nil
		case c < 0x20:
			return "", d.syntax("in string literal")
		case c == '\\':
			var err error
			if b, err = d.escape(b); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.data[d.i:])
			b = utf8.AppendRune(b, r)
			d.i += size
		}
	}
	return "", d.syntax("")
}

// escape appends what the escape sequence at d.i stands for.
func (d *decoder) escape(b []byte) ([]byte, error) {
	d.i++
	if d.i >= len(d.data) {
		return nil, d.syntax("")
	}
	c := d.data[d.i]
	d.i++
	switch c {
	case '"', '\\', '/':
		return append(b, c), nil
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
		return d.unicode(b)
	}
	d.i--
	return nil, d.syntax("in string escape code")
}

// unicode reads the four hex digits of a \u escape, and a second escape
// when the first is half a surrogate pair.
func (d *decoder) unicode(b []byte) ([]byte, error) {
	r, err := d.hex4()
	if err != nil {
		return nil, err
	}
	if utf16.IsSurrogate(r) && d.i+6 <= len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
		save := d.i
		d.i += 2
		r2, err := d.hex4()
		if err != nil {
			return nil, err
		}
		if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
			return utf8.AppendRune(b, p), nil
		}
		d.i = save
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return utf8.AppendRune(b, r), nil
}

func (d *decoder) hex4() (rune, error) {
	var r rune
	for k := 0; k < 4; k++ {
		if d.i >= len(d.data) {
			return 0, d.syntax("")
		}
		c := d.data[d.i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, d.syntax("in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
		d.i++
	}
	return r, nil
}
