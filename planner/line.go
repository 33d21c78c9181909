package planner

import (
	"strconv"
	"strings"
)

// This file formats the line items' names and details. Every plan writes a
// dozen of them, every rank of a layout its own; joined from one string per
// figure, or formatted by printf (its arguments boxed, its format parsed
// for every verb and flag), they were a third of a profile's plan.

// linef formats a name or detail: each %d in format is replaced by the
// next argument in decimal and each %B by the next argument formatted as
// Bytes.String formats it; %% is a percent sign, a % before any other
// character is written as it is, and a verb without an argument writes
// %!(MISSING) and a % at the end %!(NOVERB), as printf does. The line is
// written into a buffer on the stack and costs the one allocation of its
// string. The arguments are integers, not values of any type, so that a
// call is no more code than its integers: the WebAssembly modules carry
// every call site, uninlined, under a size budget.
func linef(format string, args ...int64) string { return linefs(format, "", args...) }

// linefs is linef with one string: each %s in format is replaced by s
// (an ID, a dtype), which would otherwise be joined on in a second string.
// It is not inlined: each call would carry its buffer and the string's
// conversion, in a module under a size budget.
//
//go:noinline
func linefs(format, s string, args ...int64) string {
	var buf [160]byte
	return string(appendLine(buf[:0], format, s, args))
}

// appendLine appends the line linefs formats to b.
func appendLine(b []byte, format, s string, args []int64) []byte {
	for {
		i := strings.IndexByte(format, '%')
		if i < 0 {
			break
		}
		b, format = append(b, format[:i+1]...), format[i+1:] // the text and its %
		if format == "" {
			b = append(b[:len(b)-1], "%!(NOVERB)"...)
			break
		}
		verb := format[0]
		format = format[1:]
		switch {
		case verb == '%': // the % is written
		case verb == 's':
			b = append(b[:len(b)-1], s...)
		case verb != 'd' && verb != 'B':
			b = append(b, verb)
		case len(args) == 0:
			b = append(b[:len(b)-1], "%!(MISSING)"...)
		case verb == 'd':
			b, args = strconv.AppendInt(b[:len(b)-1], args[0], 10), args[1:]
		default:
			b, args = Bytes(args[0]).appendTo(b[:len(b)-1]), args[1:]
		}
	}
	return append(b, format...)
}

// A plan's item names and details are written into one buffer, its
// charges' text, and each is a string of a part of it: one allocation a
// plan (the first write grows the buffer to textBytes), where each text
// was one. A strings.Builder never changes what it has written, so every
// string taken from it stays as it was when it grows. The charges must
// not be copied once written (the Builder panics).

// linef is linef written into c's text.
func (c *charges) linef(format string, args ...int64) string { return c.linefs(format, "", args...) }

// linefs is linefs written into c's text.
func (c *charges) linefs(format, s string, args ...int64) string {
	var buf [160]byte
	return c.put(appendLine(buf[:0], format, s, args))
}

// join is its parts joined, written into c's text.
func (c *charges) join(parts ...string) string {
	c.grow()
	n := c.text.Len()
	for _, p := range parts {
		c.text.WriteString(p)
	}
	return c.text.String()[n:]
}

// put writes b into c's text and returns it as a string.
func (c *charges) put(b []byte) string {
	c.grow()
	n := c.text.Len()
	c.text.Write(b)
	return c.text.String()[n:]
}

// textBytes is what the texts of one of the seed's layout ranks need
// (599 B for DeepSeek-V3 at TP8 × PP2), so that most plans grow their
// text once.
const textBytes = 640

// grow makes c's text room for textBytes at its first write; a plan that
// writes none allocates none.
func (c *charges) grow() {
	if c.text.Cap() == 0 {
		c.text.Grow(textBytes)
	}
}
