package wire_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// FuzzIDs checks the hand-written array codecs against encoding/json's:
// the same arrays accepted, the same numbers read, and a round trip.
func FuzzIDs(f *testing.F) {
	for _, s := range []string{`[]`, `null`, `[1, 2 ,3]`, `[18446744073709551615]`, `[18446744073709551616]`,
		`[-1]`, `[1.5]`, `[1e3]`, `[-2147483648, 2147483647]`, `[2147483648]`, `[1,]`, `["1"]`, `[01]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []uint64
		var got wire.IDs
		errWant, errGot := json.Unmarshal(b, &want), json.Unmarshal(b, &got)
		if (errWant == nil) != (errGot == nil) || errWant == nil && !slices.Equal(want, got) {
			t.Fatalf("IDs(%q) = %v, %v; encoding/json says %v, %v", b, got, errGot, want, errWant)
		}
		var want32 []int32
		var got32 wire.Blocks
		errWant, errGot = json.Unmarshal(b, &want32), json.Unmarshal(b, &got32)
		if (errWant == nil) != (errGot == nil) || errWant == nil && !slices.Equal(want32, got32) {
			t.Fatalf("Blocks(%q) = %v, %v; encoding/json says %v, %v", b, got32, errGot, want32, errWant)
		}
		if errGot == nil {
			again, _ := json.Marshal(got32)
			var back wire.Blocks
			if json.Unmarshal(again, &back) != nil || !slices.Equal(back, got32) {
				t.Fatalf("Blocks round trip %v -> %s -> %v", got32, again, back)
			}
		}
	})
}
