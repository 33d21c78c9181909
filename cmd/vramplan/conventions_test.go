package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// The tests of this file hold the CLI to the conventions of issue 27 point
// 10: --version, shell completion, --json on the listing commands, help
// and typos, counts with suffixes and check --gpu FILE.

func TestVersion(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/vramplan/vramplan", Version: "v0.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5c08902abcdef0123456789"}, {Key: "vcs.time", Value: "2026-12-02T10:00:15Z"},
				{Key: "vcs.modified", Value: "true"}}}, true
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := runCLI(args...)
		if want := "vramplan v0.4.0 (commit 5c08902abcde, 2026-12-02T10:00:15Z, modified) go1.26.8\n"; code != 0 || out != want {
			t.Errorf("%v = exit %d, %q; want exit 0, %q", args, code, out, want)
		}
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true
	}
	if code, out, _ := runCLI("version"); code != 0 || !strings.Contains(out, "(devel) (commit unknown: built without VCS stamping") {
		t.Errorf("version without VCS settings = exit %d, %q", code, out)
	}
	// make build's stamp stands in for the toolchain's, and yields to it.
	defer func(r, tm, m string) { buildRevision, buildTime, buildModified = r, tm, m }(buildRevision, buildTime, buildModified)
	buildRevision, buildTime, buildModified = "2e99769894f70527cba9", "2026-12-03T13:11:37Z", "true"
	if code, out, _ := runCLI("version"); code != 0 || out != "vramplan (devel) (commit 2e99769894f7, 2026-12-03T13:11:37Z, modified) go1.26.8\n" {
		t.Errorf("version with make's stamp = exit %d, %q", code, out)
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5c08902abcdef0123456789"}, {Key: "vcs.modified", Value: "false"}}}, true
	}
	if code, out, _ := runCLI("version"); code != 0 || out != "vramplan (devel) (commit 5c08902abcde) go1.26.8\n" {
		t.Errorf("version with the toolchain's stamp and make's = exit %d, %q; want the toolchain's", code, out)
	}
	if code, _, errs := runCLI("version", "extra"); code != 2 || !strings.Contains(errs, "unexpected argument") {
		t.Errorf("version extra = exit %d, %q", code, errs)
	}
}

// TestCompletion checks that each shell's script names every command path
// and every flag of the command table, and runs bash's as bash would.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errs := runCLI("completion", sh)
		if code != 0 {
			t.Fatalf("completion %s = exit %d, %s", sh, code, errs)
		}
		for _, n := range nodes() {
			for _, w := range n.words() {
				if long, ok := strings.CutPrefix(w, "--"); sh == "fish" && ok { // complete -l model, -s o
					w = "-l " + long
				} else if short, ok := strings.CutPrefix(w, "-"); sh == "fish" && ok {
					w = "-s " + short
				}
				if !strings.Contains(out, w) {
					t.Errorf("completion %s lacks %q of %q", sh, w, n.path)
				}
			}
		}
	}
	if code, _, errs := runCLI("completion", "tcsh"); code != 2 || !strings.Contains(errs, "bash, zsh or fish") {
		t.Errorf("completion tcsh = exit %d, %q", code, errs)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the script")
	}
	_, script, _ := runCLI("completion", "bash")
	path := filepath.Join(t.TempDir(), "vramplan.bash")
	os.WriteFile(path, []byte(script), 0o644)
	for _, tc := range []struct {
		words string // the command line, the last word the one completed
		want  string // COMPREPLY, joined by spaces
	}{
		{"vramplan pl", "plan"},
		{"vramplan calibrations ''", "list upload export --json"},
		{"vramplan calibrations up", "upload"},
		{"vramplan engines ''", "refit"},
		{"vramplan plan --max-s", "--max-seq-len"},
		{"vramplan plan --model qwen3 --gpu h200 --js", "--json"},
		{"vramplan plan --model ''", ""}, // a value: the shell's file names
		{"vramplan observations list --", "--engine --from --json"},
		{"vramplan completion ''", ""},
	} {
		cmd := exec.Command(bash, "--norc", "-c", `source "$1"; COMP_WORDS=(`+tc.words+`); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _vramplan; echo "${COMPREPLY[*]}"`, "bash", path)
		got, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("bash completion of %q = %q (%v), want %q", tc.words, got, err, tc.want)
		}
	}
}

// TestCompletionShells runs the zsh and fish scripts where those shells
// are installed: zsh's function with compadd and _files stood in for,
// fish's through complete -C.
func TestCompletionShells(t *testing.T) {
	for _, tc := range []struct {
		shell, script string
		want          []string
	}{
		{"zsh", `compdef() { :; }; compadd() { [[ $1 == -a ]] && print -r -- ${(P)2} }; _files() { print FILES }; source "$1"
words=(vramplan calibrations ""); CURRENT=3; _vramplan
words=(vramplan plan --model ""); CURRENT=4; _vramplan
words=(vramplan eng); CURRENT=2; _vramplan`,
			[]string{"list upload export --json", "FILES", "plan solve gpus check observations engines calibrations models serve version completion --version --help"}},
		{"fish", `source $argv[1]; complete -C "vramplan engines "; complete -C "vramplan calibrations u"; complete -C "vramplan plan --max-s"`,
			[]string{"refit", "upload", "--max-seq-len\tlongest sequence in tokens"}},
	} {
		sh, err := exec.LookPath(tc.shell)
		if err != nil {
			t.Logf("no %s to run its script", tc.shell)
			continue
		}
		_, script, _ := runCLI("completion", tc.shell)
		path := filepath.Join(t.TempDir(), "vramplan."+tc.shell)
		os.WriteFile(path, []byte(script), 0o644)
		args := []string{"-c", tc.script, tc.shell, path} // zsh's $0, then $1
		if tc.shell == "fish" {
			args = []string{"-c", tc.script, path} // fish's $argv[1]
		}
		out, err := exec.Command(sh, args...).CombinedOutput()
		for _, w := range tc.want {
			if err != nil || !strings.Contains(string(out), w) {
				t.Errorf("%s completion: %q (%v), want %q", tc.shell, out, err, w)
			}
		}
	}
}

// TestListJSON checks that each listing command prints JSON under --json.
func TestListJSON(t *testing.T) {
	var cals []struct{ ID string }
	code, out, _ := runCLI("calibrations", "--json")
	if err := json.Unmarshal([]byte(out), &cals); code != 0 || err != nil || len(cals) < 10 || cals[0].ID == "" {
		t.Errorf("calibrations --json = exit %d, %d entries, %v", code, len(cals), err)
	}
	var models []struct {
		ID      string
		Weights struct{ Bytes int64 }
	}
	code, out, _ = runCLI("models", "--json", "qwen3-8b")
	if err := json.Unmarshal([]byte(out), &models); code != 0 || err != nil || len(models) != 4 || models[0].Weights.Bytes == 0 {
		t.Errorf("models --json qwen3-8b = exit %d, %+v, %v; want its 4 entries", code, models, err)
	}
	var r struct {
		Version      string
		Observations int
		New          struct{ ComputePerHidden int64 } `json:"new"`
		Rows         []struct{ Name string }
	}
	code, out, _ = runCLI("engines", "refit", "--logs", grid, "--json")
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || r.Observations == 0 || len(r.Rows) != r.Observations || r.Version == "" {
		t.Errorf("engines refit --json = exit %d, %d observations, %d rows, %v", code, r.Observations, len(r.Rows), err)
	}
}

// TestHelpAndTypos: help exits 0 and prints help, not the command's work;
// a word that is no command exits 2 with what it is a typo of.
func TestHelpAndTypos(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout and stderr together
	}{
		{[]string{"calibrations", "-h"}, 0, "-json"},
		{[]string{"calibrations", "list", "-h"}, 0, "-json"},
		{[]string{"observations", "-h"}, 0, "list          list a server's engine observations"},
		{[]string{"engines", "--help"}, 0, "refit"},
		{[]string{"help"}, 0, "completion"},
		{[]string{"calibrations", "lsit"}, 2, `unknown command "lsit" (did you mean "list"?)`},
		{[]string{"calibrations", "list", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"observations", "lsit"}, 2, `(did you mean "list"?)`},
		{[]string{"observations"}, 2, "a command is required"},
		{[]string{"engines", "refti"}, 2, `(did you mean "refit"?)`},
		{[]string{"plna"}, 2, `unknown command "plna" (did you mean "plan"?)`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"` + "\n"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) || strings.Contains(out, "rtx5090-wsl2-cuda13.3") {
			t.Errorf("%v = exit %d, stdout %q, stderr %q; want exit %d with %q and no table", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// TestHelpEverywhere asks every command of the table for -h: each exits 0
// and prints help, to stdout for a group, to stderr for a command's flags.
func TestHelpEverywhere(t *testing.T) {
	for _, n := range nodes()[1:] {
		args := append(strings.Fields(n.path), "-h")
		if code, out, errs := runCLI(args...); code != 0 || !strings.Contains(out+errs, "usage") && !strings.Contains(out+errs, "Usage") {
			t.Errorf("%v = exit %d, %q; want exit 0 and its help", args, code, out+errs)
		}
	}
}

// TestCountFlags reads --max-seq-len and the other counts as --from-flags
// reads an engine's: K is 1024, k 1000.
func TestCountFlags(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
	}{{"32K", 32768}, {"4k", 4000}, {"8192", 8192}} {
		code, out, errs := runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", tc.v, "--max-batch", "1k", "--json")
		var p struct {
			Input struct {
				Limits struct {
					MaxSeqLen int `json:"max_seq_len"`
					MaxBatch  int `json:"max_batch"`
				} `json:"limits"`
			} `json:"input"`
		}
		if err := json.Unmarshal([]byte(out), &p); code > 1 || err != nil || p.Input.Limits.MaxSeqLen != tc.want || p.Input.Limits.MaxBatch != 1000 {
			t.Errorf("plan --max-seq-len %s --max-batch 1k = exit %d, limits %+v (%v %s); want %d and 1000", tc.v, code, p.Input.Limits, err, errs, tc.want)
		}
	}
	if code, _, errs := runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", "h200", "--max-seq-len", "32KB"); code != 2 || !strings.Contains(errs, `"32KB" is not a count`) {
		t.Errorf("--max-seq-len 32KB = exit %d, %q", code, errs)
	}
}

// TestCheckGPUFile: check takes --gpu as plan does, a calibration file
// included.
func TestCheckGPUFile(t *testing.T) {
	log := startupLog(t, "dense", "32768_1_0_f16_f16_0_512_0")
	shape := filepath.Join(grid, "models", "dense-llama3-8b.json")
	for _, gpu := range []string{"../../calibrations/h200-linux-cuda13.0.json", "h200"} {
		code, out, errs := runCLI("check", "--log", log, "--model", shape, "--gpu", gpu)
		if code != 0 || !strings.Contains(out, "on h200-linux-cuda13.0") {
			t.Errorf("check --gpu %s = exit %d\n%s%s", gpu, code, out, errs)
		}
	}
}
