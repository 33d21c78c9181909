package planner

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file refuses JSON documents whose objects repeat a key.
// encoding/json keeps the last of a repeated key without a word, so a
// document that says "max_batch": 1 and then "max_batch": 4096 means
// whatever the reader's decoder makes of it; llama.cpp refuses a GGUF
// whose metadata repeats a key (gguf.cpp, gguf_init_from_file_impl:
// "duplicate key"), and the documents here are refused the same way.
// Keys match as the decoders match them to fields, without regard to
// case (encoding/json and internal/jsonlite both fall back to
// strings.EqualFold), so {"Limits":{},"limits":{…}} repeats a key too: a
// decoder would fill one field from both.

// DuplicateKey returns the first key that some object of the JSON document
// data holds twice, and whether there is one. Keys are compared after
// unescaping and without regard to case, as strings.EqualFold compares
// them. data must be well-formed JSON (decode it first); on malformed
// input the answer is unspecified but DuplicateKey still returns.
func DuplicateKey(data []byte) (string, bool) {
	var stack []keyFrame
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, keyFrame{object: true, wantKey: true})
		case '[':
			stack = append(stack, keyFrame{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
		case '"':
			end := stringEnd(data, i)
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				f := &stack[n-1]
				f.wantKey = false
				if k := unquote(data[i : end+1]); !f.add(k) {
					return k, true
				}
			}
			i = end
		}
	}
	return "", false
}

// keyFrame is one open object or array of the scan.
type keyFrame struct {
	object, wantKey bool
	keys            map[string]struct{}
}

// add adds k to the object's keys and reports whether it was new, compared
// without regard to case.
func (f *keyFrame) add(k string) bool {
	if f.keys == nil {
		f.keys = make(map[string]struct{}, 8)
	}
	k = foldKey(k)
	if _, dup := f.keys[k]; dup {
		return false
	}
	f.keys[k] = struct{}{}
	return true
}

// foldKey returns k in a form equal for two keys exactly when
// strings.EqualFold holds for them: each rune replaced by the least rune
// of its simple case folding orbit (unicode.SimpleFold), the relation
// EqualFold compares runes by; an ASCII key is its upper case.
func foldKey(k string) string {
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return strings.Map(foldRune, k)
		}
	}
	return strings.ToUpper(k)
}

func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// stringEnd returns the index of the quote that closes the string opening
// at data[i], or the last index when it is not closed.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(data) - 1
}

// unquote returns the string a quoted JSON string holds.
func unquote(q []byte) string {
	for _, c := range q {
		if c == '\\' {
			var s string
			if unmarshal(q, &s) == nil {
				return s
			}
			break
		}
	}
	if len(q) >= 2 {
		return string(q[1 : len(q)-1])
	}
	return string(q)
}
