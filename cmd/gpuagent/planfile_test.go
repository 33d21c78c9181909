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
