package wire

// This file gives the per-step arrays a hand-written JSON form: a decode
// step carries hundreds of numbers each way, and encoding/json's
// reflection-driven array decoding was a third of a step's CPU.

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
)

// IDs is a list of sequence handles or content hashes: a JSON array of
// unsigned integers.
type IDs []uint64

// Blocks is a list of block ids, -1 for a hole: a JSON array of integers.
type Blocks []int32

var errArray = errors.New("want a JSON array of integers")

// MarshalJSON implements json.Marshaler.
func (v IDs) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(v)*8)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, x, 10)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *IDs) UnmarshalJSON(b []byte) error {
	out := slices.Grow((*v)[:0], elements(b))
	err := parseInts(b, func(neg bool, x uint64) error {
		if neg {
			return errArray
		}
		out = append(out, x)
		return nil
	})
	*v = out
	return err
}

// MarshalJSON implements json.Marshaler.
func (v Blocks) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(v)*6)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *Blocks) UnmarshalJSON(b []byte) error {
	out := slices.Grow((*v)[:0], elements(b))
	err := parseInts(b, func(neg bool, x uint64) error {
		if x > 1<<31-1+boolU(neg) {
			return errArray
		}
		n := int32(x)
		if neg {
			n = int32(-int64(x))
		}
		out = append(out, n)
		return nil
	})
	*v = out
	return err
}

// elements is how many elements the array b holds at most.
func elements(b []byte) int { return bytes.Count(b, []byte{','}) + 1 }

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// parseInts calls f for each integer of the JSON array b (null is an
// empty array). encoding/json has already checked b is valid JSON.
func parseInts(b []byte, f func(neg bool, x uint64) error) error {
	if string(b) == "null" {
		return nil
	}
	i := skip(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errArray
	}
	i = skip(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		neg, x, j, ok := parseInt(b, i)
		if !ok {
			return errArray
		}
		if err := f(neg, x); err != nil {
			return err
		}
		i = skip(b, j)
		switch {
		case i < len(b) && b[i] == ',':
			i = skip(b, i+1)
		case i < len(b) && b[i] == ']':
			return nil
		default:
			return errArray
		}
	}
}

func parseInt(b []byte, i int) (neg bool, x uint64, end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		neg, i = true, i+1
	}
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := uint64(b[i] - '0')
		if x > (1<<64-1-d)/10 {
			return false, 0, i, false // overflow
		}
		x = x*10 + d
	}
	return neg, x, i, i > start && (i == len(b) || b[i] != '.' && b[i] != 'e' && b[i] != 'E')
}

func skip(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
