package enginelog

import (
	"testing"

	"github.com/vramplan/vramplan/planner/internal/deptest"
)

// TestPureImports: enginelog depends on the standard library and the
// planner only (with internal/jsonlite and internal/printf, which stand
// in for encoding/json and fmt in the planner there), so the calculator can read a pasted log in the browser.
func TestPureImports(t *testing.T) {
	deptest.Check(t, deptest.Deps{Allowed: []string{"github.com/vramplan/vramplan/planner", "github.com/vramplan/vramplan/planner/enginelog",
		"github.com/vramplan/vramplan/internal/jsonlite", "github.com/vramplan/vramplan/internal/printf"}})
}
