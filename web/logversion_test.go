package web_test

import (
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestLogVersionExamples checks the observation's release field: it shows
// no one engine's release before a log is checked (llama.cpp's build
// number is no vLLM or SGLang release), and it carries, for each engine,
// a release in that engine's form, its newest range's first, which the
// page shows once it knows the log's engine.
func TestLogVersionExamples(t *testing.T) {
	in := page(t, "/", 200).Find("#log-version")
	if in.Length() != 1 {
		t.Fatal("the page has no #log-version field")
	}
	if p, _ := in.Attr("placeholder"); p != "" {
		t.Errorf("#log-version placeholder = %q before any log is checked, want none", p)
	}
	examples, _ := in.Attr("data-examples")
	for _, p := range planner.Profiles()[1:] {
		want := string(p.Name) + "=" + p.Versions[len(p.Versions)-1].From.String()
		if !strings.Contains(" "+examples+" ", " "+want+" ") {
			t.Errorf("#log-version data-examples = %q, want %q among them", examples, want)
		}
	}
}
