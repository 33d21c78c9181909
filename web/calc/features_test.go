package calc

import (
	"strings"
	"testing"
)

// TestDroppedFeatures: under an engine the page plans without the seed's
// weight cache, speculative decoding and CUDA-graph pool (State.Apply), and
// says so beside the answer; under the seed's engine it says nothing.
func TestDroppedFeatures(t *testing.T) {
	for _, tc := range []struct {
		q, want string
	}{
		{"engine=vllm&spec=2&graphs=1", "planned without them"},
		{"engine=sglang&spec=2", "has no Speculative decoding k"},
		{"engine=vllm", ""},
		{"spec=2&graphs=1", ""},
		{"engine=vllm&cache=none", ""}, // the page's form sends the policy "none"
	} {
		s, err := ParseQuery(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := droppedFeatures(s)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
	}
}
