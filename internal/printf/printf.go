//go:build !stdfmt

// Package printf formats as fmt does, for the verbs and operands the planner
// uses: %v %s %d %q %f %g %w with widths, precisions and the - + 0 flags,
// operands that are strings, booleans, integers, floats, errors, Stringers
// and slices, arrays and structs of them.
//
// It exists for the planner's WebAssembly module, whose gzip budget is
// 1 MB: importing fmt at all costs that module about 63 KB gzip (fmt's and
// os's initialisation), and its formatting code about 30 KB more. Native
// builds use it too, so the planner's golden text files check its output;
// its tests hold it to fmt's on every verb and operand kind it supports.
// A verb it does not support prints %!verb(type), as fmt does for a bad one.
package printf

import (
	"errors"
	"io"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Sprintf formats according to format and returns the string, as
// fmt.Sprintf does. It is not inlined: its printer and the string's
// conversion at each of the planner's calls were code in a module under
// a size budget.
//
//go:noinline
func Sprintf(format string, args ...any) string {
	var p printer
	p.run(format, args)
	return string(p.buf)
}

// Fprintf formats according to format and writes the result to w, as
// fmt.Fprintf does.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	var p printer
	p.run(format, args)
	return w.Write(p.buf)
}

// Errorf formats according to format and returns the string as an error;
// the operands of %w verbs are wrapped, as with fmt.Errorf.
func Errorf(format string, args ...any) error {
	var p printer
	p.run(format, args)
	switch len(p.wrapped) {
	case 0:
		return errors.New(string(p.buf))
	case 1:
		return &wrapError{string(p.buf), p.wrapped[0]}
	}
	return &wrapErrors{string(p.buf), p.wrapped}
}

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

type wrapErrors struct {
	msg  string
	errs []error
}

func (e *wrapErrors) Error() string   { return e.msg }
func (e *wrapErrors) Unwrap() []error { return e.errs }

// spec is one verb and its flags.
type spec struct {
	verb        rune
	minus, plus bool
	zero        bool
	width, prec int // -1 when absent
}

type printer struct {
	buf     []byte
	wrapped []error
}

func (p *printer) run(format string, args []any) {
	n := 0
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := i + 1
			for j < len(format) && format[j] != '%' {
				j++
			}
			p.buf = append(p.buf, format[i:j]...)
			i = j
			continue
		}
		var s spec
		i, n = s.parse(format, i+1, args, n)
		switch {
		case s.verb == '%':
			p.buf = append(p.buf, '%')
		case s.verb == 0:
			p.buf = append(p.buf, "%!(NOVERB)"...)
		case n >= len(args):
			p.buf = append(p.buf, '%', '!')
			p.buf = utf8.AppendRune(p.buf, s.verb)
			p.buf = append(p.buf, "(MISSING)"...)
		default:
			p.arg(&s, args[n])
			n++
		}
	}
	p.extra(args, n)
}

// parse reads the flags, width, precision and verb after a '%' at i;
// a '*' takes its figure from args[n].
func (s *spec) parse(format string, i int, args []any, n int) (int, int) {
	s.width, s.prec = -1, -1
	for ; i < len(format); i++ {
		switch format[i] {
		case '-':
			s.minus = true
		case '+':
			s.plus = true
		case '0':
			s.zero = true
		case ' ', '#':
		default:
			goto width
		}
	}
width:
	w, ok, i, n := figure(format, i, args, n)
	if ok {
		if w < 0 { // a negative '*' width pads on the right, as fmt's does
			w, s.minus, s.zero = -w, true, false
		}
		s.width = w
	}
	if i < len(format) && format[i] == '.' {
		s.prec = 0
		var p int
		if p, ok, i, n = figure(format, i+1, args, n); ok {
			s.prec = p
		}
		if s.prec < 0 { // fmt ignores a negative '*' precision
			s.prec = -1
		}
	}
	if i >= len(format) {
		return i, n
	}
	r, size := utf8.DecodeRuneInString(format[i:])
	s.verb = r
	if r == 'v' {
		s.plus = false // fmt's %+v names struct fields, which is not supported; numbers get no sign
	}
	return i + size, n
}

// figure reads a width or precision: digits, or '*' for the int args[n].
// It reports false when there is none, and for a figure fmt refuses as
// too large (a '*' past a million; digits that pass a million before the
// last), which would otherwise pad without limit.
func figure(format string, i int, args []any, n int) (v int, ok bool, next, nextArg int) {
	if i < len(format) && format[i] == '*' {
		if n < len(args) {
			v, ok = args[n].(int)
		}
		return v, ok && !tooLarge(v), i + 1, n + 1
	}
	start, big := i, false
	for i < len(format) && format[i] >= '0' && format[i] <= '9' {
		if tooLarge(v) { // checked before each digit, as fmt's parsenum does
			big = true
		} else {
			v = v*10 + int(format[i]-'0')
		}
		i++
	}
	return v, i > start && !big, i, n
}

// tooLarge reports whether a width or precision is past fmt's bound.
func tooLarge(x int) bool { return x > 1e6 || x < -1e6 }

// extra appends the operands no verb used, as fmt does.
func (p *printer) extra(args []any, n int) {
	if n >= len(args) {
		return
	}
	p.buf = append(p.buf, "%!(EXTRA "...)
	for k, a := range args[n:] {
		if k > 0 {
			p.buf = append(p.buf, ", "...)
		}
		if a == nil {
			p.buf = append(p.buf, "<nil>"...)
			continue
		}
		p.buf = append(p.buf, reflect.TypeOf(a).String()...)
		p.buf = append(p.buf, '=')
		p.value(&spec{verb: 'v', width: -1, prec: -1}, reflect.ValueOf(a), 0)
	}
	p.buf = append(p.buf, ')')
}

// arg formats one operand, padded to the spec's width.
func (p *printer) arg(s *spec, a any) {
	if s.verb == 'w' {
		if err, ok := a.(error); ok {
			p.wrapped = append(p.wrapped, err)
		}
		s.verb = 'v'
	}
	p.operand(s, a)
}

// pad pads what was appended from start to the spec's width, in runes.
// Scalars are padded one by one, so a list's elements are each padded, as
// fmt pads them. The '0' flag fills with zeros before the text, as fmt
// pads a string; a number's zeros go after its sign (padNumber).
func (p *printer) pad(s *spec, start int) { p.fill(s, start, start) }

// padNumber pads a formatted number: with the '0' flag the zeros go after
// its sign, and an infinity or NaN is padded with spaces, as fmt's
// fmtFloat and fmtInteger do.
func (p *printer) padNumber(s *spec, start int, finite bool) {
	if !finite && s.zero {
		t := *s
		t.zero = false
		p.fill(&t, start, start)
		return
	}
	at := start
	if s.zero && len(p.buf) > start && (p.buf[start] == '-' || p.buf[start] == '+') {
		at++
	}
	p.fill(s, start, at)
}

// fill pads the text appended from start to the spec's width, inserting the
// fill at at (zeros with the '0' flag, else spaces; spaces after the text
// with the '-' flag).
func (p *printer) fill(s *spec, start, at int) {
	n := s.width - utf8.RuneCount(p.buf[start:])
	if n <= 0 {
		return
	}
	if s.minus {
		for range n {
			p.buf = append(p.buf, ' ')
		}
		return
	}
	fill := byte(' ')
	if s.zero {
		fill = '0'
	} else {
		at = start
	}
	for range n {
		p.buf = append(p.buf, 0)
	}
	copy(p.buf[at+n:], p.buf[at:len(p.buf)-n])
	for k := at; k < at+n; k++ {
		p.buf[k] = fill
	}
}

// operand formats a with the spec's verb, methods first as fmt calls them.
func (p *printer) operand(s *spec, a any) {
	if a == nil {
		if s.verb == 'v' {
			p.str(&spec{verb: 's', width: s.width, minus: s.minus, prec: -1}, "<nil>")
			return
		}
		p.bad(s, nil)
		return
	}
	if s.verb == 'v' || s.verb == 's' || s.verb == 'q' {
		switch x := a.(type) {
		case error:
			p.str(s, x.Error())
			return
		case interface{ String() string }:
			p.str(s, x.String())
			return
		}
	}
	p.value(s, reflect.ValueOf(a), 0)
}

// str formats a string operand for %v, %s or %q.
func (p *printer) str(s *spec, v string) {
	start := len(p.buf)
	if s.prec >= 0 {
		v = truncate(v, s.prec)
	}
	if s.verb == 'q' && s.plus { // ASCII only, as fmt's %+q
		p.buf = strconv.AppendQuoteToASCII(p.buf, v)
	} else if s.verb == 'q' {
		p.buf = strconv.AppendQuote(p.buf, v)
	} else {
		p.buf = append(p.buf, v...)
	}
	p.pad(s, start)
}

func truncate(v string, n int) string {
	for i := range v {
		if n == 0 {
			return v[:i]
		}
		n--
	}
	return v
}
