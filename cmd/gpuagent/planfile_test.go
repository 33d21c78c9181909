package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanFileBounded holds finding 6 for gpuagent: serve and report refuse
// a plan that is not a regular file, and one past the document limit
// without reading it whole (--plan /dev/zero reached 2.8 GB; a 2 GB plan
// was read whole before the 8 MiB limit refused it).
func TestPlanFileBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(2 << 30) // sparse: 2 GiB that cost no disk
	f.Close()
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"serve", "--plan", "/dev/zero", "--backend", "fake"}, "not a regular file"},
		{[]string{"report", "--plan", "/dev/zero"}, "not a regular file"},
		{[]string{"serve", "--plan", big, "--backend", "fake"}, "the most a plan document may be"},
	} {
		var out bytes.Buffer
		if code := run(tc.args, &out, &out); code == exitOK || !strings.Contains(out.String(), tc.out) {
			t.Errorf("run(%q) = %d, %q; want a failure saying %q", tc.args, code, out.String(), tc.out)
		}
	}
}

// TestPrintable holds part of finding 13: names from a plan are printed
// with their control characters escaped.
func TestPrintable(t *testing.T) {
	got := printable("qwen\x1b[2J\x1b[31m\ngpuagent: serving evil · on")
	if strings.ContainsAny(got, "\x1b\n\r") || !strings.Contains(got, `\x1b[2J`) || !strings.Contains(got, "·") {
		t.Errorf("printable = %q, want escapes for the controls and the rest kept", got)
	}
}

// TestSocketDir holds part of finding 10: the default socket lives in a
// directory of the user's, owner-only, not in /tmp.
func TestSocketDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	dir, err := socketDir()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !strings.HasPrefix(dir, home) || fi.Mode().Perm() != 0o700 {
		t.Errorf("socketDir() = %s (%v, %v), want an owner-only directory under %s", dir, fi.Mode().Perm(), err, home)
	}
}
