package calibrations

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	tablesrc "github.com/vramplan/vramplan/calibrations/internal/table"
	"github.com/vramplan/vramplan/planner"
)

// files are the table's source files.
var files = os.DirFS(".")

// TestFresh regenerates table.go and compares it with the committed one.
func TestFresh(t *testing.T) {
	want, err := tablesrc.Source(files)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("table.go"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("table.go is stale (%v); run go generate ./calibrations", err)
	}
}

// TestCompiledIsParsed checks that the compiled table is the files as
// Parse reads and validates them, each named after its id, in All's order.
func TestCompiledIsParsed(t *testing.T) {
	want, err := load(files)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := All()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("All() = %+v\nwant the files parsed: %+v", got, want)
	}
}

func TestTableIsValidAndCanonical(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("All() is empty")
	}
	for _, c := range all {
		data, err := fs.ReadFile(files, c.ID+".json")
		if err != nil {
			t.Fatal(err)
		}
		if want := Format(&c); !bytes.Equal(data, want) {
			t.Errorf("%s.json is not canonical; want:\n%s", c.ID, want)
		}
		// An estimate says how far off it can be: the page and the CLI say it beside the verdict.
		if c.Kind() == planner.CalibrationEstimated && c.Provenance.Uncertainty <= 0 {
			t.Errorf("%s: an estimated entry without provenance.uncertainty_bytes", c.ID)
		}
	}
}

func TestSeedCalibration(t *testing.T) {
	c, err := Lookup("rtx5090-wsl2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want planner.Bytes
	}{
		{"device total", c.DeviceTotal, 32607 * planner.MiB},
		{"context", c.Context / (planner.MiB / 10), 16796},
		{"library reserve", c.LibraryReserve, 3900 * planner.MiB},
		{"granularity", c.VMM.Granularity, 2 * planner.MiB},
	} {
		if tc.got != tc.want {
			t.Errorf("Lookup(rtx5090-wsl2) %s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestLookupErrors(t *testing.T) {
	for _, name := range []string{"", "nosuchgpu"} {
		_, err := Lookup(name)
		if name == "" && len(table) == 1 {
			continue // an empty prefix is unambiguous with one entry
		}
		if err == nil {
			t.Errorf("Lookup(%q) succeeded, want an error", name)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good, _ := fs.ReadFile(files, "rtx5090-wsl2-cuda13.3.json")
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown field", `"gpu":`, `"gpuu":`, "unknown field"},
		{"bad schema", `vramplan.calibration/v1`, `v0`, "schema"},
		{"negative context", `"context_bytes": 1761188250`, `"context_bytes": -1`, "context_bytes"},
		{"granularity", `"granularity_bytes": 2097152`, `"granularity_bytes": 3000000`, "granularity"},
		{"date", `"date": "2026-07-28"`, `"date": "July"`, "date"},
		{"platform", `"platform": "wsl2"`, `"platform": "mars"`, "platform"},
		{"id too long", `"id": "rtx5090-wsl2-cuda13.3"`, `"id": "` + strings.Repeat("a", 81) + `"`, "id"},
		{"id too short", `"id": "rtx5090-wsl2-cuda13.3"`, `"id": "a"`, "id"},
		{"id case", `"id": "rtx5090-wsl2-cuda13.3"`, `"id": "RTX5090"`, "id"},
		{"trailing", "}\n", "}{}", "trailing"},
	} {
		data := strings.Replace(string(good), tc.from, tc.to, 1)
		if data == string(good) && tc.name != "trailing" {
			t.Fatalf("%s: replacement %q not found", tc.name, tc.from)
		}
		if tc.name == "trailing" {
			data = string(good) + "{}"
		}
		if _, err := Parse([]byte(data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	good, _ := fs.ReadFile(files, "rtx5090-wsl2-cuda13.3.json")
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"vmm":{"supported":true,"commit":[{"chunk_bytes":1}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err == nil {
			if err := Validate(&c); err != nil {
				t.Fatalf("Parse accepted an invalid calibration: %v", err)
			}
		}
	})
}
