//go:build !stdfmt

package printf

import (
	"reflect"
	"strconv"
	"unicode/utf8"
)

// value formats v by its kind, as fmt's printValue does for the kinds
// the package supports; depth counts the containers around it.
func (p *printer) value(s *spec, v reflect.Value, depth int) {
	if depth > 0 && v.IsValid() && v.CanInterface() && (s.verb == 'v' || s.verb == 's' || s.verb == 'q') {
		switch x := v.Interface().(type) {
		case error:
			p.str(s, x.Error())
			return
		case interface{ String() string }:
			p.str(s, x.String())
			return
		}
	}
	switch v.Kind() {
	case reflect.Invalid:
		p.buf = append(p.buf, "<invalid reflect.Value>"...)
	case reflect.String:
		p.stringKind(s, v)
	case reflect.Bool:
		p.boolKind(s, v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.intKind(s, v, v.Int(), false)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.intKind(s, v, int64(v.Uint()), true)
	case reflect.Float32, reflect.Float64:
		p.floatKind(s, v)
	case reflect.Slice, reflect.Array:
		p.list(s, v, depth)
	case reflect.Struct:
		p.fields(s, v, depth)
	case reflect.Pointer, reflect.Interface:
		p.indirect(s, v, depth)
	default:
		p.bad(s, v.Type())
	}
}

func (p *printer) stringKind(s *spec, v reflect.Value) {
	if s.verb != 'v' && s.verb != 's' && s.verb != 'q' {
		p.bad(s, v.Type(), v)
		return
	}
	p.str(s, v.String())
}

func (p *printer) boolKind(s *spec, v reflect.Value) {
	if s.verb != 'v' && s.verb != 't' {
		p.bad(s, v.Type(), v)
		return
	}
	start := len(p.buf)
	p.buf = strconv.AppendBool(p.buf, v.Bool())
	p.pad(s, start)
}

func (p *printer) intKind(s *spec, v reflect.Value, n int64, unsigned bool) {
	start := len(p.buf)
	if s.verb == 'q' {
		p.quoteRune(s, n, unsigned)
		p.pad(s, start)
		return
	}
	if s.verb != 'v' && s.verb != 'd' {
		p.bad(s, v.Type(), v)
		return
	}
	if s.prec >= 0 { // a precision is the least number of digits, and turns off the '0' flag
		t := *s
		t.zero = false
		s = &t
	}
	if s.prec == 0 && n == 0 { // fmt writes no digit, and no sign, for %.0d of zero
		p.pad(s, start)
		return
	}
	neg := !unsigned && n < 0
	if neg {
		p.buf = append(p.buf, '-')
	} else if s.plus {
		p.buf = append(p.buf, '+')
	}
	digits := len(p.buf)
	u := uint64(n)
	if neg {
		u = -u // two's complement: right for the most negative int64 too
	}
	p.buf = strconv.AppendUint(p.buf, u, 10)
	if short := s.prec - (len(p.buf) - digits); short > 0 {
		p.buf = append(p.buf, make([]byte, short)...)
		copy(p.buf[digits+short:], p.buf[digits:len(p.buf)-short])
		for k := digits; k < digits+short; k++ {
			p.buf[k] = '0'
		}
	}
	p.padNumber(s, start, true)
}

// quoteRune formats an integer for %q as fmt does: a rune literal, the
// replacement character for a value that is no rune, ASCII only with '+'.
func (p *printer) quoteRune(s *spec, n int64, unsigned bool) {
	r := utf8.RuneError
	if (unsigned || n >= 0) && uint64(n) <= utf8.MaxRune {
		r = rune(n)
	}
	if s.plus {
		p.buf = strconv.AppendQuoteRuneToASCII(p.buf, r)
	} else {
		p.buf = strconv.AppendQuoteRune(p.buf, r)
	}
}

func (p *printer) floatKind(s *spec, v reflect.Value) {
	f, bits := v.Float(), v.Type().Bits()
	verb, prec := byte('g'), -1
	switch s.verb {
	case 'v': // %g, its precision included: fmt's %.1v of 2.25 is "2"
		prec = s.prec
	case 'g', 'f', 'F':
		verb, prec = byte(s.verb|0x20), s.prec
		if verb == 'f' && prec < 0 {
			prec = 6
		}
	default:
		p.bad(s, v.Type(), v)
		return
	}
	start := len(p.buf)
	if s.plus && (f >= 0 || f != f) {
		p.buf = append(p.buf, '+')
	}
	p.buf = strconv.AppendFloat(p.buf, f, verb, prec, bits)
	p.padNumber(s, start, f-f == 0) // f-f is NaN for an infinity or NaN
}

// list formats a slice or array as [a b c].
func (p *printer) list(s *spec, v reflect.Value, depth int) {
	if depth == 0 && v.Kind() == reflect.Slice && v.IsNil() && s.verb != 'v' && s.verb != 's' && s.verb != 'd' && s.verb != 'q' {
		p.bad(s, v.Type())
		return
	}
	p.buf = append(p.buf, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			p.buf = append(p.buf, ' ')
		}
		p.element(s, v.Index(i), depth)
	}
	p.buf = append(p.buf, ']')
}

// element formats one element of a container.
func (p *printer) element(s *spec, v reflect.Value, depth int) {
	p.value(s, v, depth+1)
}

// fields formats a struct as {a b c}.
func (p *printer) fields(s *spec, v reflect.Value, depth int) {
	p.buf = append(p.buf, '{')
	for i := 0; i < v.NumField(); i++ {
		if i > 0 {
			p.buf = append(p.buf, ' ')
		}
		p.element(s, v.Field(i), depth)
	}
	p.buf = append(p.buf, '}')
}

// indirect formats what a pointer or interface holds: <nil> when nothing,
// &{…} for a pointer to a struct, slice or array at the top level, the
// value itself inside an interface.
func (p *printer) indirect(s *spec, v reflect.Value, depth int) {
	if v.IsNil() {
		p.buf = append(p.buf, "<nil>"...)
		return
	}
	if v.Kind() == reflect.Interface {
		p.value(s, v.Elem(), depth+1)
		return
	}
	switch e := v.Elem(); e.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array:
		if depth == 0 {
			p.buf = append(p.buf, '&')
			p.value(s, e, depth+1)
			return
		}
	}
	p.buf = append(p.buf, "0x"...)
	p.buf = strconv.AppendUint(p.buf, uint64(v.Pointer()), 16)
}

// bad formats an operand the verb does not apply to, as %!verb(type=value).
func (p *printer) bad(s *spec, t reflect.Type, v ...reflect.Value) {
	p.buf = append(p.buf, '%', '!')
	p.buf = append(p.buf, string(s.verb)...)
	p.buf = append(p.buf, '(')
	if t == nil {
		p.buf = append(p.buf, "<nil>"...)
	} else {
		p.buf = append(p.buf, t.String()...)
	}
	if len(v) > 0 {
		p.buf = append(p.buf, '=')
		p.value(&spec{verb: 'v', width: -1, prec: -1}, v[0], 1)
	}
	p.buf = append(p.buf, ')')
}
