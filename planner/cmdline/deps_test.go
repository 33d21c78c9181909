package cmdline

import (
	"testing"

	"github.com/vramplan/vramplan/planner/internal/deptest"
)

// TestPureImports: cmdline depends on the standard library and the
// planner only (with internal/jsonlite and internal/printf, which stand
// in for encoding/json and fmt in the planner there), so the calculator can read a pasted command line in the
// browser.
func TestPureImports(t *testing.T) {
	deptest.Check(t, deptest.Deps{Allowed: []string{"github.com/vramplan/vramplan/planner", "github.com/vramplan/vramplan/planner/cmdline",
		"github.com/vramplan/vramplan/internal/jsonlite", "github.com/vramplan/vramplan/internal/printf"}})
}
