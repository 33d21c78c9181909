package arch

// This file reads config.json fields by name, so that every error names the
// field that is missing or wrong. Numbers are parsed from their JSON text and
// bounded before use: a hostile config cannot size an allocation.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxInt bounds every integer a config may hold (2^31−1): more than any
// dimension, layer count or vocabulary a real model has.
const maxInt = math.MaxInt32

// maxList bounds the length of a list field (layer_types and the like).
const maxList = 1 << 16

// fields is one JSON object of a config, read field by field. The first error
// sticks; later reads return zero values.
type fields struct {
	m    map[string]json.RawMessage
	path string // "" for the top level, "text_config." below it
	err  *error
}

func newFields(data []byte) (*fields, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("config.json: not a JSON object")
	}
	var err error
	return &fields{m: m, err: &err}, nil
}

func (f *fields) fail(key, format string, args ...any) {
	if *f.err == nil {
		*f.err = fmt.Errorf("config.json: %s%s: %s", f.path, key, fmt.Sprintf(format, args...))
	}
}

// raw returns the field's JSON text, or nil when it is absent or null.
func (f *fields) raw(key string) json.RawMessage {
	v, ok := f.m[key]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

// has reports whether key is present and not null.
func (f *fields) has(key string) bool { return f.raw(key) != nil }

// int returns the integer field key, or def when it is absent.
func (f *fields) int(key string, def int) int {
	v := f.raw(key)
	if v == nil {
		return def
	}
	return f.parseInt(key, v)
}

// need returns the integer field key and fails when it is absent.
func (f *fields) need(key string) int {
	if !f.has(key) {
		f.fail(key, "missing")
		return 0
	}
	return f.int(key, 0)
}

func (f *fields) parseInt(key string, v json.RawMessage) int {
	x, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64)
	switch {
	case err != nil:
		f.fail(key, "%.40s is not a number", v)
	case x != math.Trunc(x):
		f.fail(key, "%v is not an integer", x)
	case x < 0:
		f.fail(key, "%v is negative", x)
	case x > maxInt:
		f.fail(key, "%v is out of range", x)
	default:
		return int(x)
	}
	return 0
}

// num returns the numeric field key, or def when it is absent. It fails on
// a value that is not finite or outside ±maxInt.
func (f *fields) num(key string, def float64) float64 {
	v := f.raw(key)
	if v == nil {
		return def
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64)
	if err != nil || math.IsInf(x, 0) || math.Abs(x) > maxInt {
		f.fail(key, "%.40s is not a number in range", v)
		return def
	}
	return x
}

// count returns the length of the list field key, 0 when it is absent.
func (f *fields) count(key string) int {
	v := f.raw(key)
	if v == nil {
		return 0
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil || len(raw) > maxList {
		f.fail(key, "not a list of at most %d entries", maxList)
		return 0
	}
	return len(raw)
}

// bool returns the boolean field key, or def when it is absent.
func (f *fields) bool(key string, def bool) bool {
	v := f.raw(key)
	if v == nil {
		return def
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		f.fail(key, "%.40s is not a boolean", v)
	}
	return b
}

// str returns the string field key, or "" when it is absent.
func (f *fields) str(key string) string {
	v := f.raw(key)
	if v == nil {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		f.fail(key, "%.40s is not a string", v)
	}
	return s
}

// strs returns the string-list field key (a lone string counts as a list of one).
func (f *fields) strs(key string) []string {
	v := f.raw(key)
	if v == nil {
		return nil
	}
	if v[0] == '"' {
		return []string{f.str(key)}
	}
	var s []string
	if err := json.Unmarshal(v, &s); err != nil || len(s) > maxList {
		f.fail(key, "not a list of at most %d strings", maxList)
		return nil
	}
	return s
}

// ints returns the integer-list field key.
func (f *fields) ints(key string) []int {
	v := f.raw(key)
	if v == nil {
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil || len(raw) > maxList {
		f.fail(key, "not a list of at most %d numbers", maxList)
		return nil
	}
	out := make([]int, len(raw))
	for i, r := range raw {
		out[i] = f.parseInt(fmt.Sprintf("%s[%d]", key, i), r)
	}
	return out
}

// sub returns the object field key, or nil when it is absent.
func (f *fields) sub(key string) *fields {
	v := f.raw(key)
	if v == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		f.fail(key, "not an object")
		return nil
	}
	return &fields{m: m, path: f.path + key + ".", err: f.err}
}
