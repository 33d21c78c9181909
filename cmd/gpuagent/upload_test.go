package main

import (
	"bytes"
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

// TestSendCalibration is calibrate --upload after the measurement: the
// document is shown, the answer asked for, and the server's answer printed.
func TestSendCalibration(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "u.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: st}))
	defer srv.Close()
	data, err := os.ReadFile("../../calibrations/h200-linux-cuda13.0.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	stdin = strings.NewReader("no\n")
	if err := sendCalibration(data, srv.URL, false, &out); err != nil || !strings.Contains(out.String(), "not sent") {
		t.Fatalf("answered no: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := sendCalibration(data, srv.URL, true, &out); err != nil {
		t.Fatalf("--yes: %v\n%s", err, out.String())
	}
	if s := out.String(); !strings.Contains(s, "This will POST") || !strings.Contains(s, "accepted: upload") {
		t.Errorf("output:\n%s", s)
	}
}
