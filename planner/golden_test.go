package planner

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestGolden plans every testdata/golden/*.input.json and compares the plan
// document and the text report with the checked-in .plan.json and .txt.
// Run `go test ./planner -update` to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/golden/*.input.json")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, path := range inputs {
		base := strings.TrimSuffix(path, ".input.json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in, err := ParseInput(data)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := Report(in)
			compareGolden(t, base+".plan.json", p.JSON())
			compareGolden(t, base+".txt", []byte(p.Text()))
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./planner -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the plan; run go test ./planner -update and review the diff\ngot:\n%s", path, got)
	}
}
