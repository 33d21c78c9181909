package enginelog

import (
	"testing"

	"github.com/vramplan/vramplan/planner/internal/deptest"
)

// TestPureImports: enginelog depends on the standard library and the
// planner only, so the calculator can read a pasted log in the browser.
func TestPureImports(t *testing.T) {
	deptest.Check(t, deptest.Deps{Allowed: []string{"github.com/vramplan/vramplan/planner", "github.com/vramplan/vramplan/planner/enginelog"}})
}
