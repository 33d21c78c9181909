package enginelog

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestPureImports: enginelog depends on the standard library and the
// planner only, so the calculator can read a pasted log in the
// browser.
func TestPureImports(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command; runs natively")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		if std != "true" && path != "github.com/vramplan/vramplan/planner" && path != "github.com/vramplan/vramplan/planner/enginelog" {
			t.Errorf("enginelog depends on %s", path)
		}
	}
}
