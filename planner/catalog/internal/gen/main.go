// Command gen writes the catalog's models/*.json from spec.json and the
// config.json files under planner/hf/testdata/configs, and models.go, the
// same models as Go values. Run it through go generate ./planner/catalog.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vramplan/vramplan/planner/catalog/internal/build"
)

func main() {
	files, err := build.Generate("spec.json", filepath.Join("..", "hf", "testdata", "configs"))
	if err == nil {
		err = write("models", files)
	}
	if err == nil {
		var src []byte
		if src, err = build.GoSource(files); err == nil {
			err = os.WriteFile("models.go", src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// write replaces the directory's JSON files with files.
func write(dir string, files map[string][]byte) error {
	old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
