// Package golit writes Go values as Go source: composite literals that a
// generator commits, so that a program gets a table from its data segment
// instead of decoding it at start. Only the kinds a plain data table holds
// are written (structs, pointers to them, slices, strings, numbers,
// booleans): a map or an interface would be built by code run at start,
// which is what such a literal is for avoiding.
package golit

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
)

// Elements writes each of vs, a slice, as one element of a slice literal
// of its type, with the type elided, followed by a comma and a newline.
func Elements(b *bytes.Buffer, vs any) error {
	v := reflect.ValueOf(vs)
	if v.Kind() != reflect.Slice {
		return fmt.Errorf("golit: Elements of a %s", v.Kind())
	}
	for i := range v.Len() {
		if err := literal(b, v.Index(i), true); err != nil {
			return err
		}
		b.WriteString(",\n")
	}
	return nil
}

// literal writes v as a Go expression; elided is true where the type is
// implied by the enclosing slice literal.
func literal(b *bytes.Buffer, v reflect.Value, elided bool) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return nil
		}
		if !elided {
			b.WriteString("&")
		}
		return literal(b, v.Elem(), elided)
	case reflect.Struct:
		return structLiteral(b, v, elided)
	case reflect.Slice:
		return sliceLiteral(b, v)
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	default:
		return fmt.Errorf("golit: cannot write a %s (%s)", v.Kind(), v.Type())
	}
	return nil
}

func structLiteral(b *bytes.Buffer, v reflect.Value, elided bool) error {
	if !elided {
		b.WriteString(v.Type().String())
	}
	b.WriteString("{")
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		if !t.Field(i).IsExported() {
			return fmt.Errorf("golit: %s.%s is unexported", t, t.Field(i).Name)
		}
		b.WriteString(t.Field(i).Name + ": ")
		if err := literal(b, f, false); err != nil {
			return err
		}
		b.WriteString(", ")
	}
	b.WriteString("}")
	return nil
}

func sliceLiteral(b *bytes.Buffer, v reflect.Value) error {
	if v.IsNil() {
		b.WriteString("nil")
		return nil
	}
	b.WriteString(v.Type().String() + "{")
	if v.Len() > 0 {
		b.WriteString("\n")
	}
	for i := range v.Len() {
		if err := literal(b, v.Index(i), true); err != nil {
			return err
		}
		b.WriteString(",\n")
	}
	b.WriteString("}")
	return nil
}
