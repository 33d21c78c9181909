package backend_test

// This file is the I1 gate: only backends talk to the driver. The driver
// shim will be gpuagent/internal/cuda; any other package that imports it
// fails this test. The allowlist of other importers starts empty and must
// stay empty.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const driverShim = "github.com/vramplan/vramplan/gpuagent/internal/cuda"

// backendDirs may import the driver shim: they are backends.
var backendDirs = map[string]bool{
	"gpuagent/backend/cudamalloc": true,
	"gpuagent/backend/vmm":        true,
	"gpuagent/internal/cuda":      true, // the shim itself and its tests
}

// allowlist holds other importers tolerated during a migration. Empty.
var allowlist = map[string]bool{}

// driverImporters returns "dir: file" for every Go file under root's
// gpuagent/ and cmd/ trees, whatever its build tags, that imports the
// driver shim from a directory not allowed to.
func driverImporters(t *testing.T, root string) []string {
	var bad []string
	for _, top := range []string{"gpuagent", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) && path == filepath.Join(root, top) {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() && skipDir(d.Name()) {
				return skipOr(err)
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && importsShim(t, path) {
				rel, _ := filepath.Rel(root, path)
				if dir := filepath.ToSlash(filepath.Dir(rel)); !backendDirs[dir] && !allowlist[dir] {
					bad = append(bad, rel)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return bad
}

func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func skipOr(err error) error {
	if err != nil {
		return err
	}
	return filepath.SkipDir
}

func importsShim(t *testing.T, path string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == driverShim || strings.HasPrefix(p, driverShim+"/") {
			return true
		}
	}
	return false
}

func TestOnlyBackendsImportTheDriver(t *testing.T) {
	if len(allowlist) != 0 {
		t.Errorf("the I1 allowlist must stay empty, has %v", allowlist)
	}
	if bad := driverImporters(t, filepath.Join("..", "..")); len(bad) > 0 {
		t.Errorf("these files import %s but are not backends:\n%s", driverShim, strings.Join(bad, "\n"))
	}
}

// TestGateCatchesAnImporter proves the gate can fail: a fake tree with a
// package under gpuagent/kv importing the shim, even behind a build tag.
func TestGateCatchesAnImporter(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(src), 0o644)
	}
	write("gpuagent/kv/kv.go", "//go:build cuda\n\npackage kv\n\nimport _ \""+driverShim+"\"\n")
	write("gpuagent/backend/vmm/vmm.go", "package vmm\n\nimport _ \""+driverShim+"\"\n")
	write("cmd/agent/main.go", "package main\n\nimport (\n\t\"fmt\"\n\tc \""+driverShim+"\"\n)\n")
	bad := driverImporters(t, root)
	if want := "gpuagent/kv/kv.go cmd/agent/main.go"; strings.Join(bad, " ") != want {
		t.Errorf("driverImporters = %v, want %s", bad, want)
	}
}
