// Package script runs data-driven test scripts, in the manner of pebble's
// datadriven package. A script is a sequence of cases; each case is one
// command line, a line "----", and the expected output, ended by a blank
// line or the end of the file. Lines before a command that start with '#'
// are comments and are kept when expectations are rewritten.
//
//	# take from an arena
//	take a 4096 align=256
//	----
//	a: 4096 B at +0x0
//
// Run with update set rewrites each file with the outputs it got.
package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A Cmd is one parsed command line.
type Cmd struct {
	Pos  string            // file:line, for messages
	Name string            // the first word
	Args []string          // the other words that are not key=value
	KV   map[string]string // the key=value words
}

// Arg returns the i-th positional argument, failing the test if missing.
func (c *Cmd) Arg(t testing.TB, i int) string {
	t.Helper()
	if i >= len(c.Args) {
		t.Fatalf("%s: %s needs %d arguments", c.Pos, c.Name, i+1)
	}
	return c.Args[i]
}

// Int parses the i-th positional argument as an integer.
func (c *Cmd) Int(t testing.TB, i int) int64 {
	t.Helper()
	n, err := strconv.ParseInt(c.Arg(t, i), 0, 64)
	if err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	return n
}

// IntKV returns the integer value of key, or def if absent.
func (c *Cmd) IntKV(t testing.TB, key string, def int64) int64 {
	t.Helper()
	v, ok := c.KV[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", c.Pos, key, err)
	}
	return n
}

type testCase struct {
	preamble []string // comments and blank lines before the command
	line     string
	cmd      Cmd
	want     string
	got      string
}

func parse(path, text string) ([]testCase, []string) {
	var cases []testCase
	var pre []string
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			pre = append(pre, l)
			continue
		}
		tc := testCase{preamble: pre, line: l, cmd: parseCmd(fmt.Sprintf("%s:%d", path, i+1), l)}
		pre = nil
		i, tc.want = readExpected(lines, i+1)
		cases = append(cases, tc)
	}
	return cases, pre
}

func readExpected(lines []string, i int) (int, string) {
	if i >= len(lines) || lines[i] != "----" {
		return i - 1, ""
	}
	var out []string
	for i++; i < len(lines) && lines[i] != ""; i++ {
		out = append(out, lines[i])
	}
	return i, strings.Join(out, "\n") // i is the blank line that ends the case

}

func parseCmd(pos, line string) Cmd {
	f := strings.Fields(line)
	c := Cmd{Pos: pos, Name: f[0], KV: map[string]string{}}
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			c.KV[k] = v
		} else {
			c.Args = append(c.Args, w)
		}
	}
	return c
}

// Run runs the script at path, calling do for each command with state
// shared across the file. With update set it rewrites the file's
// expectations instead of comparing them.
func Run(t *testing.T, path string, update bool, do func(t *testing.T, c *Cmd) string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, trailer := parse(path, string(text))
	for i := range cases {
		tc := &cases[i]
		tc.got = strings.TrimRight(do(t, &tc.cmd), "\n")
		if !update && tc.got != tc.want {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", tc.cmd.Pos, tc.line, tc.got, tc.want)
		}
	}
	if update {
		write(t, path, cases, trailer)
	}
}

func write(t *testing.T, path string, cases []testCase, trailer []string) {
	var b strings.Builder
	for _, tc := range cases {
		for _, l := range tc.preamble {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "%s\n----\n", tc.line)
		if tc.got != "" {
			b.WriteString(tc.got + "\n")
		}
		b.WriteString("\n") // consumed by parse as the case's terminator
	}
	for _, l := range trailer {
		if l != "" {
			b.WriteString(l + "\n")
		}
	}
	out := strings.TrimRight(b.String(), "\n") + "\n"
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// RunDir runs every file in dir as its own subtest, with fresh state from
// newDo for each file.
func RunDir(t *testing.T, dir string, update bool, newDo func(t *testing.T) func(t *testing.T, c *Cmd) string) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { Run(t, f, update, newDo(t)) })
	}
}
