package names_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner/names"
)

var gpus = []string{"h200-linux-cuda13.0", "rtx5090-wsl2-cuda13.3", "rtx5090-linux-cuda13.0"}

func TestResolve(t *testing.T) {
	for _, tt := range []struct {
		name, want, err string
	}{
		{"h200-linux-cuda13.0", "h200-linux-cuda13.0", ""},
		{"H200", "h200-linux-cuda13.0", ""},
		{"  h2 ", "h200-linux-cuda13.0", ""},
		{"rtx5090-w", "rtx5090-wsl2-cuda13.3", ""},
		{"rtx5090", "", `calibration "rtx5090" is ambiguous: it could be rtx5090-wsl2-cuda13.3, rtx5090-linux-cuda13.0`},
		{"a100", "", `no calibration "a100"; closest: `},
		{"", "", "no calibration named; one of: "},
		{"file:my-model", "", `calibration "file:my-model" is a local file, read in the browser that made this link`},
	} {
		got, err := names.Resolve("calibration", tt.name, gpus)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("Resolve(%q) = %q, %v, want %q, %q…", tt.name, got, err, tt.want, tt.err)
		}
	}
}

func TestResolveExactBeatsPrefix(t *testing.T) {
	ids := []string{"qwen3-8b", "qwen3-8b-bf16"}
	if got, err := names.Resolve("model", "qwen3-8b", ids); got != "qwen3-8b" || err != nil {
		t.Errorf(`Resolve("qwen3-8b") = %q, %v, want "qwen3-8b"`, got, err)
	}
}

func TestNearIDs(t *testing.T) {
	_, err := names.Resolve("calibration", "rtx5900-wsl2", gpus)
	var e *names.Error
	if !errors.As(err, &e) || len(e.Near) == 0 || e.Near[0] != "rtx5090-wsl2-cuda13.3" {
		t.Fatalf("Resolve(rtx5900-wsl2) = %v, want the nearest id rtx5090-wsl2-cuda13.3 first", err)
	}
	if got := names.Closest("h20", gpus, 1); !slices.Equal(got, []string{"h200-linux-cuda13.0"}) {
		t.Errorf("Closest(h20) = %v", got)
	}
	long := strings.Repeat("x", 1<<20)
	if got := names.Closest(long, gpus, 2); len(got) != 2 {
		t.Errorf("Closest(1 MiB name) = %v, want 2 ids", got)
	}
}

func TestSuggest(t *testing.T) {
	cmds := []string{"plan", "solve", "check", "calibrations", "serve", "models", "list"}
	for q, want := range map[string]string{
		"lsit": "list", "plna": "plan", "calibratoins": "calibrations", "SERV": "serve", "modles": "models",
		"frobnicate": "", "plan": "", "x": "", "": "", "pl": "",
	} {
		if got := names.Suggest(q, cmds); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", q, got, want)
		}
	}
}
