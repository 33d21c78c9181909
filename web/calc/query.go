package calc

import (
	"strings"
)

// This file encodes and decodes URL queries. It stands in for net/url,
// which would add about 40 KB gzip to the planner's WebAssembly (through
// net/netip) for two small functions.

// values is a decoded query. A key given twice with different values is
// refused (parseValues): a link that says two things says neither, and
// taking one of them would plan what the link's author may not have meant.
type values map[string]string

func (v values) get(k string) string { return v[k] }

// parseValues decodes an application/x-www-form-urlencoded query.
func parseValues(query string) (values, error) {
	v := values{}
	for part := range strings.SplitSeq(strings.TrimPrefix(query, "?"), "&") {
		if part == "" {
			continue
		}
		k, val, _ := strings.Cut(part, "=")
		k, err := unescape(k)
		if err != nil {
			return nil, err
		}
		if val, err = unescape(val); err != nil {
			return nil, err
		}
		if err := v.set(k, val); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// set records val under k, refusing a second, different value for k; the
// same value twice is one value.
func (v values) set(k, val string) error {
	if was, seen := v[k]; seen && was != val {
		return &FieldError{k, k + " is given twice, as " + quote(was) + " and " + quote(val) + ": a link holds each key once"}
	}
	v[k] = val
	return nil
}

// CheckKeys returns the *FieldError that ParseQuery would return for a key
// of query given twice with different values, or for an invalid escape,
// or nil: the server holds its other endpoints' queries, which are no
// state, to the same rule.
func CheckKeys(query string) error {
	_, err := parseValues(query)
	return err
}

func unescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return "", &FieldError{"query", "invalid escape in " + quote(s)}
			}
			b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// escape percent-encodes everything but RFC 3986's unreserved characters,
// ':' and ',', which a query may hold as they are (a local model's "file:"
// id, a tensor split's "3,1").
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~:,", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func quote(s string) string { return `"` + s + `"` }
