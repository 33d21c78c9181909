package jsonlite

import "reflect"

// array reads a JSON array into a slice or an array.
func (d *decoder) array(v reflect.Value, depth int) error {
	d.i++
	v = indirect(v)
	if v.IsValid() && v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		d.mismatch("array", v.Type())
		v = reflect.Value{}
	}
	n := 0
	err := d.elements(depth, func() error {
		err := d.value(d.element(v, n), depth+1)
		n++
		return err
	})
	if err != nil || !v.IsValid() {
		return err
	}
	d.finish(v, n)
	return nil
}

// elements calls one for each element of the array whose '[' was read.
func (d *decoder) elements(depth int, one func() error) error {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return nil
	}
	for {
		if err := one(); err != nil {
			return err
		}
		d.space()
		if d.i >= len(d.data) {
			return d.syntax("")
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.syntax("after array element")
		}
	}
}

// element returns where element n of slice or array v goes, growing a
// slice; past an array's end it is the sink.
func (d *decoder) element(v reflect.Value, n int) reflect.Value {
	switch {
	case !v.IsValid():
		return v
	case v.Kind() == reflect.Array:
		if n >= v.Len() {
			return reflect.Value{}
		}
	case n >= v.Cap():
		v.Grow(1)
		fallthrough
	case n >= v.Len():
		v.SetLen(n + 1)
		v.Index(n).SetZero()
	}
	return v.Index(n)
}

// finish trims slice v to n elements, or zeroes array v past them.
func (d *decoder) finish(v reflect.Value, n int) {
	if v.Kind() == reflect.Array {
		for ; n < v.Len(); n++ {
			v.Index(n).SetZero()
		}
		return
	}
	if n == 0 && v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	v.SetLen(n)
}

// object reads a JSON object into a struct.
func (d *decoder) object(v reflect.Value, depth int) error {
	d.i++
	v = indirect(v)
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.Struct:
		return d.members(depth, func(key string) error { return d.member(v, key, depth) })
	default:
		d.mismatch("object", v.Type())
		v = reflect.Value{}
	}
	return d.members(depth, func(string) error { return d.value(v, depth+1) })
}

// members calls one with each key of the object whose '{' was read, d.i
// at the key's value.
func (d *decoder) members(depth int, one func(key string) error) error {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return nil
	}
	for {
		d.space()
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return d.syntax("looking for beginning of object key string")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		d.space()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return d.syntax("after object key")
		}
		d.i++
		if err := one(key); err != nil {
			return err
		}
		d.space()
		if d.i >= len(d.data) {
			return d.syntax("")
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.syntax("after object key:value pair")
		}
	}
}

// member reads the value of key into the field of struct v it names.
func (d *decoder) member(v reflect.Value, key string, depth int) error {
	f := lookup(fieldsOf(v.Type()), key)
	if f == nil {
		if d.strict && d.err == nil {
			d.err = errorf(d.i, "json: unknown field ", string(appendString(nil, key)))
		}
		return d.value(reflect.Value{}, depth+1)
	}
	owner := d.owner
	d.path = append(d.path, f.name)
	fv := fieldAlloc(v, f.index)
	d.owner = v.Type()
	if len(f.index) > 1 {
		d.owner = fieldAlloc(v, f.index[:len(f.index)-1]).Type()
	}
	err := d.value(fv, depth+1)
	d.path, d.owner = d.path[:len(d.path)-1], owner
	return err
}

// fieldAlloc follows index from struct v, allocating nil embedded pointers;
// an unexported one it cannot set is the sink.
func fieldAlloc(v reflect.Value, index []int) reflect.Value {
	for k, i := range index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}
