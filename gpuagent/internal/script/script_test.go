package script

import (
	"os"
	"path/filepath"
	"testing"
)

const in = `# a comment
echo a b=1
----
stale

echo c
----
`

const want = `# a comment
echo a b=1
----
a b=1

echo c
----
c
`

func echo(t *testing.T, c *Cmd) string {
	out := c.Arg(t, 0)
	if v, ok := c.KV["b"]; ok {
		out += " b=" + v
	}
	return out
}

func TestUpdateRewritesAndIsStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	os.WriteFile(path, []byte(in), 0o644)
	Run(t, path, true, echo)
	got, _ := os.ReadFile(path)
	if string(got) != want {
		t.Fatalf("rewritten script:\n%s\nwant:\n%s", got, want)
	}
	Run(t, path, false, echo) // the rewritten file passes as it is
	Run(t, path, true, echo)
	if again, _ := os.ReadFile(path); string(again) != want {
		t.Errorf("second rewrite changed the file:\n%s", again)
	}
}
