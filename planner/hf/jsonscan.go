package hf

// This file is a small JSON scanner for safetensors headers and indexes.
// A sharded MoE checkpoint names ~19k tensors in ~4 MB of JSON, which
// encoding/json decodes ten times slower than the one pass below. It accepts
// only well-formed JSON, nests at most maxNesting deep, and allocates only
// the strings and integer lists it returns.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

const maxNesting = 64

type scanner struct {
	data  []byte
	pos   int
	depth int
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("want %q", c)
	}
	s.pos++
	return nil
}

// str reads a string.
func (s *scanner) str() (string, error) {
	raw, escaped, err := s.rawStr()
	if err != nil || !escaped {
		return string(raw), err
	}
	var out string
	err = json.Unmarshal(s.data[s.pos-len(raw)-2:s.pos], &out)
	return out, err
}

// rawStr reads a string and returns its bytes between the quotes, valid
// until the data changes, and whether it holds escapes.
func (s *scanner) rawStr() ([]byte, bool, error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	start, escaped := s.pos, false
	for ; s.pos < len(s.data); s.pos++ {
		switch c := s.data[s.pos]; {
		case c == '\\':
			escaped = true
			s.pos++
		case c < 0x20:
			return nil, false, s.errorf("control character in string")
		case c == '"':
			s.pos++
			return s.data[start : s.pos-1], escaped, nil
		}
	}
	return nil, false, s.errorf("unterminated string")
}

// int reads an integer in [−2^62, 2^62].
func (s *scanner) int() (int64, error) {
	s.ws()
	neg := s.pos < len(s.data) && s.data[s.pos] == '-'
	if neg {
		s.pos++
	}
	start := s.pos
	var v int64
	for ; s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9'; s.pos++ {
		if v > (math.MaxInt64/4-9)/10 {
			return 0, s.errorf("integer out of range")
		}
		v = v*10 + int64(s.data[s.pos]-'0')
	}
	if s.pos == start || (s.pos < len(s.data) && (s.data[s.pos] == '.' || s.data[s.pos] == 'e' || s.data[s.pos] == 'E')) {
		return 0, s.errorf("want an integer")
	}
	if neg {
		v = -v
	}
	return v, nil
}

// ints reads an array of at most 16 integers.
func (s *scanner) ints() ([]int64, error) {
	var buf [16]int64
	n := 0
	err := s.array(func() error {
		if n == len(buf) {
			return s.errorf("more than %d integers", len(buf))
		}
		v, err := s.int()
		buf[n], n = v, n+1
		return err
	})
	return slices.Clone(buf[:n]), err
}

// object calls member for each key, positioned at its value.
func (s *scanner) object(member func(key string) error) error {
	return s.nested('{', '}', func() error {
		key, err := s.str()
		if err == nil {
			err = s.expect(':')
		}
		if err == nil {
			err = member(key)
		}
		return err
	})
}

// objectRaw is object with each key's raw bytes (escapes undecoded), which
// it does not allocate.
func (s *scanner) objectRaw(member func(key []byte) error) error {
	return s.nested('{', '}', func() error {
		key, _, err := s.rawStr()
		if err == nil {
			err = s.expect(':')
		}
		if err == nil {
			err = member(key)
		}
		return err
	})
}

// pair reads an array of exactly two integers.
func (s *scanner) pair() ([2]int64, error) {
	var p [2]int64
	n := 0
	err := s.array(func() error {
		if n == 2 {
			return s.errorf("more than 2 integers")
		}
		v, err := s.int()
		p[n], n = v, n+1
		return err
	})
	if err == nil && n != 2 {
		err = s.errorf("want 2 integers")
	}
	return p, err
}

// array calls item for each element.
func (s *scanner) array(item func() error) error { return s.nested('[', ']', item) }

func (s *scanner) nested(open, close byte, each func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	if s.depth++; s.depth > maxNesting {
		return s.errorf("nested more than %d deep", maxNesting)
	}
	defer func() { s.depth-- }()
	if s.peek() == close {
		s.pos++
		return nil
	}
	for {
		if err := each(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case close:
			s.pos++
			return nil
		default:
			return s.errorf("want ',' or %q", close)
		}
	}
}

// skip reads past any value.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func(string) error { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		_, err := s.str()
		return err
	}
	return s.literal()
}

// literal reads a number, true, false or null.
func (s *scanner) literal() error {
	start := s.pos
	for s.pos < len(s.data) && (isNumByte(s.data[s.pos]) || s.data[s.pos] >= 'a' && s.data[s.pos] <= 'z') {
		s.pos++
	}
	if !json.Valid(s.data[start:s.pos]) {
		return s.errorf("invalid value")
	}
	return nil
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// end checks that nothing but space follows the value.
func (s *scanner) end() error {
	if s.peek() != 0 {
		return s.errorf("data after the value")
	}
	return nil
}
