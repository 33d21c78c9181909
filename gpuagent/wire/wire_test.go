package wire_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

var bounds = wire.Bounds{MaxOps: 64, MaxBatch: 32, MaxTokens: 1024, MaxHashes: 64}

func TestCheck(t *testing.T) {
	tests := []struct {
		body string
		want string // error code, "" for none
	}{
		{`{"lease":"l","ops":[{"op":"admit","max_tokens":10,"tokens":5,"hashes":[1]}]}`, ""},
		{`{"lease":"l","decode":{"seqs":[1,2],"hashes":[0,7]}}`, ""},
		{`{"ops":[{"op":"unpin"}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"explode"}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"admit"}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"free"}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"unpin","seq":3}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"append","seq":1,"tokens":-1}]}`, wire.CodeBadRequest},
		{`{"lease":"l","ops":[{"op":"append","seq":1,"tokens":1025}]}`, wire.CodeOverLimit},
		{`{"lease":"l","decode":{"seqs":[1,2],"hashes":[0]}}`, wire.CodeBadRequest},
	}
	for _, tt := range tests {
		var s wire.Step
		err := wire.Unmarshal([]byte(tt.body), &s)
		if err == nil {
			err = s.Check(bounds)
		}
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tt.want {
			t.Errorf("Check(%s) = %v, want code %q", tt.body, err, tt.want)
		}
	}
}

// FuzzStep feeds the server's decoder arbitrary bodies: it must never
// panic, and a body it accepts must survive a round trip unchanged.
func FuzzStep(f *testing.F) {
	f.Add([]byte(`{"lease":"l","ops":[{"op":"admit","max_tokens":10,"tokens":5,"hashes":[1]}],"decode":{"seqs":[1]}}`))
	f.Add([]byte(`{"lease":"l","ops":[{"op":"fork","seq":18446744073709551615}]}`))
	f.Add([]byte(`{"lease":"l","ops":[{"op":"free","op":"admit","max_tokens":1}]}`))
	f.Add([]byte(`{"LEASE":"l","decode":{"seqs":[1],"Hashes":[2]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var s wire.Step
		if wire.Unmarshal(body, &s) != nil || s.Check(bounds) != nil {
			return
		}
		again, err := json.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		var s2 wire.Step
		if err := wire.Unmarshal(again, &s2); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if !reflect.DeepEqual(normalize(s), normalize(s2)) {
			t.Fatalf("round trip changed %+v into %+v", s, s2)
		}
	})
}

// normalize makes empty and nil slices equal, as JSON does: {"decode":{}}
// decodes with no seqs (nil), is written back as "seqs":[] and read again
// as an empty list, the same request.
func normalize(s wire.Step) wire.Step {
	for i := range s.Ops {
		if len(s.Ops[i].Hashes) == 0 {
			s.Ops[i].Hashes = nil
		}
	}
	if len(s.Ops) == 0 {
		s.Ops = nil
	}
	if s.Decode != nil {
		d := *s.Decode // not the caller's
		if len(d.Seqs) == 0 {
			d.Seqs = nil
		}
		if len(d.Hashes) == 0 {
			d.Hashes = nil
		}
		s.Decode = &d
	}
	return s
}

// TestUnmarshalKeys holds Unmarshal to refusing what encoding/json would
// take silently: a repeated key (it keeps the last) and a key in another
// case than its field's (it matches without case), at any depth.
func TestUnmarshalKeys(t *testing.T) {
	tests := []struct {
		body string
		v    any
		want string // in the message; "" for accepted
	}{
		{`{"lease":"l","ops":[{"op":"free","seq":1}]}`, new(wire.Step), ""},
		{`{"lease":"l","ops":[{"op":"free","op":"admit","max_tokens":1}]}`, new(wire.Step), `key "op" appears twice`},
		{`{"lease":"a","lease":"b"}`, new(wire.LeaseRef), `key "lease" appears twice`},
		{`{"lease":"a","le\u0061se":"b"}`, new(wire.LeaseRef), `key "lease" appears twice`},
		{`{"LEASE":"a"}`, new(wire.LeaseRef), `key "LEASE": keys are matched exactly, and the field is "lease"`},
		{`{"TTL_MS":1000}`, new(wire.OpenLease), `field is "ttl_ms"`},
		{`{"lease":"l","ops":[{"Op":"unpin"}]}`, new(wire.Step), `field is "op"`},
		{`{"lease":"l","decode":{"Seqs":[1]}}`, new(wire.Step), `field is "seqs"`},
		{`{"lease":"l","op":{"op":"admit","max_tokens":2,"Max_Tokens":3}}`, new(wire.AdmitCall), `field is "max_tokens"`},
		{`{"lease":"l","op":{"op":"admit","max_tokens":2}}`, new(wire.AdmitCall), ""},
		{` { "lease" : "l" , "decode" : { "seqs" : [ 1 , 2 ] } } `, new(wire.Step), ""},
	}
	for _, tt := range tests {
		err := wire.Unmarshal([]byte(tt.body), tt.v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Unmarshal(%s) = %v, want no error", tt.body, err)
		case tt.want != "" && (err == nil || err.Code != wire.CodeBadRequest || !strings.Contains(err.Message, tt.want)):
			t.Errorf("Unmarshal(%s) = %v, want bad_request with %q", tt.body, err, tt.want)
		}
	}
}

// TestUnmarshalManyKeys covers an object with more keys than are
// compared pairwise: a repeat among them is still found.
func TestUnmarshalManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"k33":0}`)
	var m map[string]int
	if err := wire.Unmarshal([]byte(b.String()), &m); err == nil || !strings.Contains(err.Message, `"k33" appears twice`) {
		t.Errorf("Unmarshal(40 keys and k33 again) = %v, want the repeat named", err)
	}
}

// TestUnmarshalKeysConcurrently decodes from many goroutines at once, the
// first time each type is seen: no walk may read a type's fields before
// they are all known (go test -race).
func TestUnmarshalKeysConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p wire.PoolAck
			if err := wire.Unmarshal([]byte(`{"seq":1,"SEQ":2}`), &p); err == nil {
				t.Error("a case variant decoded")
			}
		}()
	}
	wg.Wait()
}
