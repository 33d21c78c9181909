// Package layers holds no code. Its test holds the module to the map that
// docs/architecture.md opens with: every package is on the map, and no
// package imports one on a higher floor. The map is the one source of the
// floors; this test only reads it. TestImportGroups holds every file's
// imports to goimports' grouping.
package layers

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vramplan/vramplan/"

// floors reads the map's table: package path (relative to the module) to
// its floor number.
func floors(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if pkg, floor, ok := mapRow(sc.Text()); ok {
			if _, dup := m[pkg]; dup {
				t.Errorf("docs/architecture.md's map lists %s twice", pkg)
			}
			m[pkg] = floor
		}
	}
	if len(m) == 0 {
		t.Fatal("docs/architecture.md has no map rows (| floor | `package` | what it is |)")
	}
	return m
}

// mapRow parses "| 3 readers | `planner/hf` | …" into its package and floor.
func mapRow(line string) (pkg string, floor int, ok bool) {
	cells := strings.Split(line, "|")
	if len(cells) < 4 {
		return "", 0, false
	}
	num, _, _ := strings.Cut(strings.TrimSpace(cells[1]), " ")
	n, err := strconv.Atoi(num)
	name := strings.TrimSpace(cells[2])
	if err != nil || len(name) < 3 || name[0] != '`' || name[len(name)-1] != '`' {
		return "", 0, false
	}
	return name[1 : len(name)-1], n, true
}

// imports lists every package of the module under the given GOOS/GOARCH
// with its imports of the module's own packages.
func imports(t *testing.T, env ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", env, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		m[pkg] = nil
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) && imp != fields[0] {
				m[pkg] = append(m[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	return m
}

// TestFloors fails when a package is missing from the map or imports a
// package on a higher floor, natively or under js/wasm. Tests are not
// held to it: a test may set its package against what stands above it
// (the planner's tests plan on the calibration table).
func TestFloors(t *testing.T) {
	fl := floors(t)
	seen := map[string]bool{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		for pkg, deps := range imports(t, env...) {
			if pkg == "internal/layers" {
				continue
			}
			seen[pkg] = true
			f, ok := fl[pkg]
			if !ok {
				t.Errorf("%s is not on docs/architecture.md's map: add a row for it", pkg)
				continue
			}
			for _, d := range deps {
				if g, ok := fl[d]; ok && g > f {
					t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only its own floor or below", pkg, f, d, g)
				}
			}
		}
	}
	for pkg := range fl {
		if !seen[pkg] {
			t.Errorf("docs/architecture.md's map lists %s, which is not a package of the module", pkg)
		}
	}
}
