package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

func uploadServer(t *testing.T) string {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "u.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: st}))
	t.Cleanup(func() { srv.Close(); st.Close() })
	return srv.URL
}

// TestUploadExportPlan is the operator's loop with the CLI: upload what
// calibrate wrote, export the group's aggregate, plan on the exported file.
func TestUploadExportPlan(t *testing.T) {
	url := uploadServer(t)
	dir := t.TempDir()
	var files []string
	for n := range 3 {
		path := filepath.Join(dir, "card.json")
		if err := os.WriteFile(path, uploadDoc(t, n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		stdin = strings.NewReader("y\n")
		code, out, errs := runCLI("calibrations", "upload", path, "--to", url)
		if code != 0 || !strings.Contains(out, "accepted: upload") || !strings.Contains(out, "deletion token") || !strings.Contains(out, `"schema": "vramplan.calibration/v1"`) {
			t.Fatalf("upload = %d\n%s%s", code, out, errs)
		}
	}
	stdin = strings.NewReader("n\n")
	if code, out, _ := runCLI("calibrations", "upload", files[0], "--to", url); code != 1 || !strings.Contains(out, "not sent") {
		t.Errorf("upload answered no = %d %s", code, out)
	}
	if code, out, _ := runCLI("calibrations", "upload", files[0], "--to", url, "--yes"); code != 0 || !strings.Contains(out, "already uploaded") {
		t.Errorf("upload again = %d %s", code, out)
	}
	exported := filepath.Join(dir, "h200-140gib-linux-r580-cuda13.0.json")
	if code, _, errs := runCLI("calibrations", "export", "--group", "h200-140gib-linux-r580-cuda13.0", "--from", url, "-o", exported); code != 0 {
		t.Fatalf("export = %d %s", code, errs)
	}
	c, err := os.ReadFile(exported)
	if err != nil || !strings.Contains(string(c), `"source": "community"`) {
		t.Fatalf("exported file: %v\n%s", err, c)
	}
	code, out, errs := runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", exported, "--max-batch", "8", "--max-seq-len", "4096")
	if code != 0 || !strings.Contains(out, "library reserve (community)") {
		t.Errorf("plan --gpu FILE = %d\n%s%s", code, out, errs)
	}
}

func TestUploadRefusedLocally(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.json")
	os.WriteFile(path, []byte(`{"schema":"vramplan.calibration/v1","colour":1}`), 0o644)
	code, _, errs := runCLI("calibrations", "upload", path, "--to", "http://127.0.0.1:1", "--yes")
	if code != 2 || !strings.Contains(errs, "would refuse") {
		t.Errorf("upload of a bad file = %d %s", code, errs)
	}
}
