package planner

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	for _, tc := range []struct {
		doc string
		key string
		dup bool
	}{
		{`{}`, "", false},
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "a", true},
		{`{"a":1,"\u0061":2}`, "a", true},
		{`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, "", false},
		{`{"a":{"x":1,"x":2}}`, "x", true},
		{`[{"k":"a,\"k\":"},{"k":1}]`, "", false},
		{`{"s":"{\"a\":1,\"a\":2}"}`, "", false},
		{`{"l":[1,2,{"m":1}],"l":3}`, "l", true},
		{`{"Limits":{},"limits":{"max_batch":1}}`, "limits", true}, // as the decoders match fields
		{`{"max_batch":1,"MAX_BATCH":2}`, "MAX_BATCH", true},
		{`{"k":1,"\u212a":2}`, "\u212a", true}, // the Kelvin sign folds to k
		{`{"a":{"B":1},"b":{"b":1}}`, "", false},
	} {
		k, dup := DuplicateKey([]byte(tc.doc))
		if k != tc.key || dup != tc.dup {
			t.Errorf("DuplicateKey(%s) = %q, %v, want %q, %v", tc.doc, k, dup, tc.key, tc.dup)
		}
	}
}

// TestParseInputDuplicateKey holds part of finding 3 of issue 13: a key
// repeated in one object is refused, not decoded as its last value.
func TestParseInputDuplicateKey(t *testing.T) {
	data := readGoldenInput(t, "b1-qwen3-4b-fp8")
	doubled := bytes.Replace(data, []byte(`"max_batch":`), []byte(`"max_batch": 4096, "max_batch":`), 1)
	if bytes.Equal(doubled, data) {
		t.Fatal("the golden input has no max_batch")
	}
	if _, err := ParseInput(doubled); err == nil || !strings.Contains(err.Error(), `"max_batch" appears twice`) {
		t.Errorf("ParseInput(max_batch twice) = %v, want a duplicate-key error", err)
	}
	if _, err := ParseInput(data); err != nil {
		t.Errorf("ParseInput(golden) = %v", err)
	}
}

// FuzzDuplicateKey checks the scan against encoding/json's tokens, keys
// compared by strings.EqualFold.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":1}],"b":{"a":"\"a\""}}`, `[{"x":1},{"x":1}]`, `{"\u00e9":1,"é":2}`, `{"Limits":{},"limits":{}}`, `{"\u0130":1,"i":2}`, `{"ſ":1,"S":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			DuplicateKey(data) // must return
			return
		}
		want := tokenDuplicate(t, data)
		if _, got := DuplicateKey(data); got != want {
			t.Errorf("DuplicateKey(%q) = %v, encoding/json's tokens say %v", data, got, want)
		}
	})
}

// tokenDuplicate is DuplicateKey written with encoding/json's tokens.
func tokenDuplicate(t *testing.T, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.keys != nil && top.wantKey {
			if k, ok := tok.(string); ok {
				for seen := range top.keys {
					if strings.EqualFold(seen, k) {
						return true
					}
				}
				top.keys[k], top.wantKey = true, false
				continue
			}
		}
		if top != nil && top.keys != nil {
			top.wantKey = true // a value ends; the next token is a key or '}'
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.keys != nil {
				top.wantKey = false
			}
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			if top != nil && top.keys != nil {
				top.wantKey = false
			}
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].keys != nil {
				stack[len(stack)-1].wantKey = true
			}
		}
	}
}

func readGoldenInput(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/golden/" + name + ".input.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}
