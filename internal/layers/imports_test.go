package layers

import (
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestImportGroups holds every Go file of the module to goimports'
// grouping, which gofmt does not check: the standard library's packages in
// a group of their own, before the others.
func TestImportGroups(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "--", "../../*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	files := strings.Fields(string(out))
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d Go files, want the module's", len(files))
	}
	for _, f := range files {
		if msg := importGroups(t, f); msg != "" {
			t.Errorf("%s: %s", f, msg)
		}
	}
}

// importGroups says how file's imports break the grouping, "" when they
// keep it. A blank line ends a group.
func importGroups(t *testing.T, file string) string {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	prevLine, groupStd, sawOther := 0, false, false
	for _, spec := range af.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		std := !strings.Contains(strings.Split(path, "/")[0], ".")
		line := fset.Position(spec.Pos()).Line
		if prevLine == 0 || line > prevLine+1 {
			groupStd = std
		}
		prevLine = fset.Position(spec.End()).Line
		switch {
		case std != groupStd:
			return "the standard library's " + strconv.Quote(path) + " is grouped with other packages"
		case std && sawOther:
			return strconv.Quote(path) + " comes after other packages' group"
		}
		sawOther = sawOther || !std
	}
	return ""
}
