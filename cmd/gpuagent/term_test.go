package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClip holds clip to its length and its escapes: a cut never splits
// a character, and says how much it left out.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"\x1b[2Jab", 10, `\x1b[2Jab`},
		{"abcdef", 3, "abc… (3 bytes more)"},
		{"ab·cd", 3, "ab… (4 bytes more)"},
		{"\x1b[2J", 5, `\x1b[… (2 bytes more)`}, // · is 2 bytes: not split
		{"a\nb", 10, `a\nb`},
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestServeCutsNames holds issue 31's point 18 for serve: a plan whose
// model and calibration are named with 100 KB of text and terminal escapes
// each is announced and refused with the names escaped and cut (the model's
// was printed whole).
func TestServeCutsNames(t *testing.T) {
	name := strings.Repeat("\x1b[31mqwen·", 100<<10/10)
	plan := planNamed(t, name)
	var out bytes.Buffer
	if code := run([]string{"serve", "--plan", plan, "--backend", "fake", "--fake-context-mib", "400"}, &out, &out); code != exitFail {
		t.Fatalf("serve with the context off = %d, want %d:\n%.2000s", code, exitFail, out.String())
	}
	checkCut(t, "the refusal", out.String(), maxLine+32)

	sock := filepath.Join(t.TempDir(), "ga.sock")
	var serveOut, serveErr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"serve", "--plan", plan, "--backend", "fake", "--listen", "unix:" + sock}, &serveOut, &serveErr)
	}()
	waitListening(t, "unix", sock)
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Interrupt)
	if code := <-done; code != exitOK {
		t.Fatalf("serve = %d: %.2000s", code, serveErr.String())
	}
	if !strings.Contains(serveOut.String(), "qwen·") {
		t.Errorf("the announcement does not name the model:\n%.2000s", serveOut.String())
	}
	checkCut(t, "the announcement", serveOut.String(), maxLine)
}

// checkCut fails unless every line of out is at most n bytes and out
// carries no terminal escape, and says it cut.
func checkCut(t *testing.T, what, out string, n int) {
	t.Helper()
	if strings.Contains(out, "\x1b") || !utf8.ValidString(out) || !strings.Contains(out, "bytes more)") {
		t.Errorf("%s carries an escape, invalid UTF-8 or no cut:\n%.2000q", what, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > n {
			t.Errorf("%s has a line of %d bytes, more than %d: %.300s…", what, len(l), n, l)
		}
	}
}

// planNamed writes the tiny plan with its model and calibration renamed
// and returns the file.
func planNamed(t *testing.T, name string) string {
	t.Helper()
	p := tiny(t)
	p.Input.Model.Name = name
	p.Input.Calibration.ID = name
	path := filepath.Join(t.TempDir(), "named.plan.json")
	if err := os.WriteFile(path, p.JSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
