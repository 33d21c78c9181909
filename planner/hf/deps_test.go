package hf

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestStdlibOnly proves that hf and catalog import the standard library and
// the planner only (with the module's internal stand-ins for encoding/json
// and fmt that the planner uses), under js/wasm as natively: gguf-parser-go (and the
// network stack it pulls in) stays in planner/gguf.
func TestStdlibOnly(t *testing.T) {
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		goos := target[0]
		cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "../catalog")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH="+target[1])
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		for _, p := range strings.Fields(string(out)) {
			own := strings.HasPrefix(p, "github.com/vramplan/vramplan/planner") || strings.HasPrefix(p, "github.com/vramplan/vramplan/internal/")
			if !own || strings.Contains(p, "planner/gguf") {
				t.Errorf("GOOS=%s: hf or catalog imports %s", goos, p)
			}
		}
	}
}
