package modelfile_test

// The corpus of real vLLM and SGLang start-ups (planner/testdata/engines/corpus)
// is only useful if each run's model can be planned offline. This file opens
// every entry's model the way the CLI's --model does and holds the corpus's
// own config.json copies to their published parameter counts. It reads the
// corpus with calibrations/corpus's loader, the one reader of its format,
// which validates every entry first (a model named both ways, a config
// path outside corpus.ConfigDirs, an unplannable entry without its note);
// a test may import a package above its own (internal/layers).

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/modelfile"
)

// repoRoot is the repository root from this package; model.config paths
// are relative to it.
const repoRoot = "../.."

func readCorpus(t *testing.T) []corpus.Entry {
	t.Helper()
	entries, err := corpus.Load(os.DirFS(filepath.Join(repoRoot, filepath.FromSlash(corpus.Dir))))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestCorpusModels opens every corpus entry's model: the catalog id, or
// the config.json its path from the repository root names (an entry with
// neither says why in its note, which corpus.Load holds it to). The opened
// shape must have what the entry's family says (experts, MLA, sliding
// windows, recurrent layers, a vision tower).
func TestCorpusModels(t *testing.T) {
	for _, e := range readCorpus(t) {
		m, ok := openEntry(t, &e)
		if ok {
			checkFamily(t, &e, m)
		}
	}
}

// openEntry opens e's model, reporting whether it has one.
func openEntry(t *testing.T, e *corpus.Entry) (planner.Model, bool) {
	t.Helper()
	cat, cfg := e.Model.Catalog, e.Model.Config
	switch {
	case cat != "":
		m, err := modelfile.Open(cat, modelfile.Options{})
		if err != nil || m.ID != cat {
			t.Errorf("%s: Open(%q) = model %q, %v; want the catalog entry itself", e.ID, cat, m.ID, err)
			return m, false
		}
		return m, true
	case cfg != "":
		m, err := modelfile.Open(filepath.Join(repoRoot, filepath.FromSlash(cfg)), modelfile.Options{})
		if err != nil {
			t.Errorf("%s: Open(%s): %v", e.ID, cfg, err)
			return m, false
		}
		return m, true
	}
	return planner.Model{}, false
}

// checkFamily checks that each tag of e's family is visible in shape m.
func checkFamily(t *testing.T, e *corpus.Entry, m planner.Model) {
	t.Helper()
	has := map[string]bool{"dense": true, "moe": m.MoE != nil, "mla": m.MLA != nil,
		"swa": hasKind(m, planner.LayerSliding), "hybrid": hasKind(m, planner.LayerRecurrent), "vision": m.Vision != nil}
	for _, tag := range strings.Split(e.Model.Family, "+") {
		if present, known := has[tag]; !known || !present {
			t.Errorf("%s: family %q says %s, but the model %s has none", e.ID, e.Model.Family, tag, m.ID)
		}
	}
}

func hasKind(m planner.Model, k planner.LayerKind) bool {
	for _, g := range m.Layers {
		if g.Kind == k {
			return true
		}
	}
	return false
}

// heldTo matches a provenance row of corpus/configs/README.md: the file, its
// source, and the count it is held to (the first figure of its column:
// digits with thousands commas, or a published rounding such as "235B").
var heldTo = regexp.MustCompile("^\\| `([^`]+)` \\| .* \\| ([0-9][0-9,.]*)(B?)\\b[^|]* \\| [^|]* \\|$")

// readHeldTo returns the parameter count each corpus config is held to.
func readHeldTo(t *testing.T) map[string]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, filepath.FromSlash(corpus.Dir), "configs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := heldTo.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
		if err != nil {
			t.Fatalf("configs/README.md: %s: held to %q: %v", m[1], m[2], err)
		}
		if m[3] == "B" {
			n *= 1e9
		}
		out[m[1]] = n
	}
	return out
}

// TestCorpusConfigs holds every config.json under corpus/configs to the
// parameter count its provenance row gives (within 0.5 %), and checks that
// a corpus entry uses it.
func TestCorpusConfigs(t *testing.T) {
	held := readHeldTo(t)
	used := map[string]bool{}
	for _, e := range readCorpus(t) {
		used[e.Model.Config] = true
	}
	paths, _ := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(corpus.Dir), "configs", "*.json"))
	for _, p := range paths {
		name := filepath.Base(p)
		if !used[corpus.Dir+"/configs/"+name] {
			t.Errorf("configs/%s: no corpus entry names it", name)
		}
		want, ok := held[name]
		if !ok {
			t.Errorf("configs/%s: no provenance row with a parameter count in configs/README.md", name)
			continue
		}
		m, err := modelfile.Open(p, modelfile.Options{})
		if err != nil {
			t.Errorf("Open(configs/%s): %v", name, err)
			continue
		}
		if got := float64(m.Params()); got < want*0.995 || got > want*1.005 {
			t.Errorf("configs/%s: %d parameters, want %.0f within 0.5 %%", name, m.Params(), want)
		}
	}
	if len(paths) != len(held) {
		t.Errorf("configs/README.md has %d rows for %d config files", len(held), len(paths))
	}
}
