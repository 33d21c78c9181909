package calc

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestVersionState reads the engine's release from the URL, writes it
// back, and plans it under an engine only: the seed's engine has none.
func TestVersionState(t *testing.T) {
	s, err := ParseQuery("model=m&gpu=g&engine=vllm&version=+0.6.3+")
	if err != nil || s.Version != "0.6.3" {
		t.Fatalf("ParseQuery(version=0.6.3) = %+v, %v", s, err)
	}
	if q := s.Encode(); q != "model=m&gpu=g&engine=vllm&version=0.6.3&batch=0&len=4096" {
		t.Errorf("Encode() = %q", q)
	}
	var in planner.Input
	s.Apply(&in)
	if in.Serving.Version != "0.6.3" {
		t.Errorf("Apply under vllm: serving.version = %q, want 0.6.3", in.Serving.Version)
	}
	s.Engine = ""
	in = planner.Input{}
	s.Apply(&in)
	if in.Serving != (planner.Serving{}) {
		t.Errorf("Apply under the seed's engine: serving = %+v, want none", in.Serving)
	}
	if got := Words(&planner.InputError{Field: "serving.version", Msg: "vLLM 0.3 is outside the releases the profile covers"}); got !=
		"Engine release: vLLM 0.3 is outside the releases the profile covers." {
		t.Errorf("Words = %q", got)
	}
}
