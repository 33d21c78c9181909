package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestLoaderMaxBody holds the loader's body limit (worker.mjs) to the one
// main gives bridge.Serve, planner.MaxDocument: the loader reads one byte
// more of a body, so a route still sees that a body is past its limit. (An
// instance whose limit differs is refused when it starts, too.)
func TestLoaderMaxBody(t *testing.T) {
	src, err := os.ReadFile("worker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`maxBody: (\d+) << (\d+)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("worker.mjs: no `maxBody: N << S` in its Pool options")
	}
	n, _ := strconv.Atoi(string(m[1]))
	s, _ := strconv.Atoi(string(m[2]))
	if got := int64(n) << s; got != planner.MaxDocument {
		t.Errorf("worker.mjs reads bodies of %d bytes, main_js.go %d (planner.MaxDocument)", got, planner.MaxDocument)
	}
}
