package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRefitCorpus runs vramplan engines refit --corpus on the repository:
// both constants fitted from the runs that print them, every complete
// vLLM run listed with its residual before and after, and the text and
// --json agreeing; nothing is written.
func TestRefitCorpus(t *testing.T) {
	code, out, errs := runCLI("engines", "refit", "--corpus", "../..", "--json")
	if code != 0 {
		t.Fatalf("engines refit --corpus --json = %d\n%s", code, errs)
	}
	var d corpusRefitDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Constants) != 2 || len(d.Runs) == 0 || d.Within["runs"] != len(d.Runs) {
		t.Fatalf("refit = %+v", d)
	}
	for _, c := range d.Constants {
		if c.Used == 0 || c.Refit <= 0 {
			t.Errorf("constant %q fitted from %d runs: %v", c.Name, c.Used, c.Refit)
		}
	}
	_, text, _ := runCLI("engines", "refit", "--corpus", "../..")
	for _, r := range d.Runs {
		if r.Before == nil || !strings.Contains(text, r.ID) {
			t.Errorf("run %s: before %v, in the text %v", r.ID, r.Before, strings.Contains(text, r.ID))
		}
	}
	if !strings.Contains(text, "Nothing was written") {
		t.Error("the text does not say that nothing was written")
	}
	for _, args := range [][]string{{"--corpus", "../..", "--logs", "x"}, {"--json"}, {"--corpus", "/nonexistent"}} {
		if code, _, _ := runCLI(append([]string{"engines", "refit"}, args...)...); code != exitBadInput {
			t.Errorf("engines refit %v = %d, want %d", args, code, exitBadInput)
		}
	}
}
