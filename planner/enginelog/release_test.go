package enginelog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestReleaseBoundsCorpus reads every vLLM V1 start-up of the corpus whose
// release is known, as if its log stated none, and finds that release
// inside the bound its lines set: the bounds are held to real runs.
func TestReleaseBoundsCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/engines/corpus/vllm/*.json")
	bounded := 0
	for _, path := range files {
		var e struct{ Version string }
		readJSON(t, path, &e)
		v, err := planner.ParseVersion(e.Version)
		if err != nil || v.Compare(version(vllmV1From)) < 0 {
			continue
		}
		data, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".log")
		if err != nil {
			t.Fatal(err)
		}
		r := read(data)
		r.version = "" // as a log that states none
		l := r.log()
		st := l.Settings
		if st == nil || st.ReleaseFrom == "" && st.ReleaseUntil == "" {
			continue
		}
		bounded++
		if st.ReleaseFrom != "" && v.Compare(version(st.ReleaseFrom)) < 0 || st.ReleaseUntil != "" && v.Compare(version(st.ReleaseUntil)) >= 0 {
			t.Errorf("%s: release %s is outside [%s, %s) (%v)", filepath.Base(path), e.Version, st.ReleaseFrom, st.ReleaseUntil, st.ReleaseBy)
		}
	}
	if bounded < 20 {
		t.Errorf("%d corpus logs bounded, want at least 20", bounded)
	}
}

// TestReleases: the releases a V1 log may be of are one per range of rules
// its bound overlaps, newest first.
func TestReleases(t *testing.T) {
	for _, c := range []struct {
		from, until string
		want        []string
	}{
		{"0.21", "", []string{"", "0.21"}},
		{"0.18", "0.21", []string{"0.18"}},
		{"0.16.1", "0.21", []string{"0.17", "0.16.1"}},
		{"", "0.18", []string{"0.17", "0.13", "0.11", "0.9.1", "0.9", "0.8.5", "0.8"}},
		{"", "", []string{"", "0.21", "0.17", "0.13", "0.11", "0.9.1", "0.9", "0.8.5", "0.8"}},
	} {
		l := Log{Engine: planner.EngineVLLM, Settings: &Settings{ReleaseFrom: c.from, ReleaseUntil: c.until}}
		if got := l.Releases(); !slices.Equal(got, c.want) {
			t.Errorf("Releases(%q, %q) = %q, want %q", c.from, c.until, got, c.want)
		}
	}
	for _, l := range []Log{{Engine: planner.EngineVLLM, Version: "0.19.0"}, {Engine: planner.EngineVLLM, Settings: &Settings{V0: true}},
		{Engine: planner.EngineSGLang}} {
		if got := l.Releases(); got != nil {
			t.Errorf("Releases(%+v) = %q, want none", l, got)
		}
	}
}

// TestRankFigures: a figure every rank prints alike is read from the
// lowest rank that prints it when rank 0 does not, named by that rank,
// and rank 0's own replaces it; two ranks' figures are never mixed.
func TestRankFigures(t *testing.T) {
	const est = "[gpu_model_runner.py:6143] Estimated CUDA graph memory: %s GiB total\n"
	line := func(prefix, gib string) string { return prefix + " INFO " + strings.Replace(est, "%s", gib, 1) }
	for _, c := range []struct {
		log        string
		bytes, res planner.Bytes
		rank       string
	}{
		{line("(Worker_TP2 pid=3)", "0.30") + line("(Worker_TP1 pid=2)", "0.17"), 182536110, 5368709, "TP1"},
		{line("(Worker_TP1 pid=2)", "0.17") + line("(Worker_TP2 pid=3)", "0.30"), 182536110, 5368709, "TP1"},
		{line("(Worker_TP1 pid=2)", "0.17") + line("(Worker_TP0 pid=1)", "0.2"), 214748364, 53687091, ""},
		{line("(Worker_PP1_TP0 pid=2)", "0.17") + line("(Worker_PP0_TP3 pid=3)", "0.30"), 322122547, 5368709, "TP3"},
	} {
		l, _ := Read([]byte(c.log))
		if len(l.Reported) != 1 || l.Reported[0].Bytes != c.bytes || l.Reported[0].Resolution != c.res || l.Reported[0].Rank != c.rank {
			b, _ := json.Marshal(l.Reported)
			t.Errorf("Read(%q).Reported = %s, want %d B ± %d of rank %q", c.log, b, c.bytes, c.res, c.rank)
		}
	}
}

// TestLowestRank: a log whose rank 0 prints no figure is read from the
// lowest other rank of the first pipeline stage, all of its figures that
// rank's; a later stage's lines and a rank 0 that prints one are kept out.
func TestLowestRank(t *testing.T) {
	const kv = " INFO 05-14 00:04:17 [gpu_worker.py:460] Available KV cache memory: %s GiB\n"
	line := func(prefix, gib string) string { return prefix + strings.Replace(kv, "%s", gib, 1) }
	for _, c := range []struct {
		log, rank string
		gib       float64
	}{
		{line("(Worker_TP3 pid=4)", "3.00") + line("(Worker_TP2 pid=3)", "2.00") + line("(Worker_PP1_TP0 pid=9)", "9.00"), "TP2", 2},
		{line("(Worker_PP1_TP0 pid=9)", "9.00"), "", 0},
		{line("(Worker_TP2 pid=3)", "2.00") + line("(EngineCore pid=1)", "1.00"), "", 1},
		{line("(EngineCore_DP1 pid=2)", "4.00") + line("(Worker_TP1 pid=3)", "5.00"), "TP1", 5},
	} {
		l, _ := Read([]byte(c.log))
		got := 0.0
		if len(l.Figures) == 1 {
			got = float64(l.Figures[0].Bytes) / float64(planner.GiB)
		}
		if l.FiguresRank != c.rank || !(got > c.gib-0.01 && got < c.gib+0.01) {
			t.Errorf("Read(%q): figures of rank %q, %.2f GiB; want %q, %.2f", c.log, l.FiguresRank, got, c.rank, c.gib)
		}
	}
}
