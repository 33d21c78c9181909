package corpus

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Kinds are the model kinds a family joins with "+".
var Kinds = []string{"dense", "moe", "mla", "swa", "hybrid", "vision"}

// ConfigDirs are where an entry's model.config may lie, from the
// repository root.
var ConfigDirs = []string{"planner/hf/testdata/configs/", Dir + "/configs/"}

// validate checks every field but the figures (readFigures).
func (e *Entry) validate() error {
	for _, check := range []func() error{e.checkID, e.checkVersion, e.checkSource, e.checkGPU, e.cardTotal, e.checkModel, e.checkConfig, e.checkOutcome} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (e *Entry) fail(field, format string, args ...any) error {
	id := e.ID
	if id == "" {
		id = "entry"
	}
	return &Error{Entry: id, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (e *Entry) checkID() error {
	if e.ID == "" || len(e.ID) > 120 {
		return e.fail("id", "%q: want 1 to 120 characters", cut(e.ID, 40))
	}
	for _, c := range e.ID {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._", c)) {
			return e.fail("id", "%q: want lower-case letters, digits, '-', '.', '_'", e.ID)
		}
	}
	if _, ok := configKeys[e.Engine]; !ok {
		return e.fail("engine", "%q: want %s or %s", cut(e.Engine, 40), EngineVLLM, EngineSGLang)
	}
	if !strings.HasPrefix(e.ID, e.Engine+"-") {
		return e.fail("id", "%q does not start with its engine %q", e.ID, e.Engine+"-")
	}
	return nil
}

func (e *Entry) checkVersion() error {
	if e.Version == "" {
		return e.fail("version", "empty")
	}
	f := e.VersionFrom
	if f != "log" && f != "thread" && !(strings.HasPrefix(f, "inferred: ") && len(f) > len("inferred: ")) {
		return e.fail("version_from", "%q: want log, thread or \"inferred: <why>\"", cut(f, 40))
	}
	_, err := BandOf(e)
	return err
}

func (e *Entry) checkSource() error {
	s := &e.Source
	// An empty address is a source the index names no address for;
	// where then says what it is.
	if s.URL != "" && (!strings.HasPrefix(s.URL, "https://") || strings.ContainsAny(s.URL, " \n")) {
		return e.fail("source.url", "%q is not an https address", cut(s.URL, 60))
	}
	if _, err := time.Parse("2006-01-02", s.Date); err != nil {
		if _, err := time.Parse("2006-01", s.Date); err != nil {
			return e.fail("source.date", "%q: want YYYY-MM-DD or YYYY-MM", cut(s.Date, 20))
		}
	}
	if s.Where == "" {
		return e.fail("source.where", "empty: say where in the source the log is")
	}
	return nil
}

func (e *Entry) checkGPU() error {
	g := &e.GPU
	switch {
	case g.Count < 1 || g.Count > 1024:
		return e.fail("gpu.count", "%d: want 1 to 1024", g.Count)
	case g.From != "log" && g.From != "thread" && g.From != "card":
		return e.fail("gpu.total_from", "%q: want log, thread or card", cut(g.From, 20))
	case g.From != "card" && (!(g.TotalGiB > 0 && g.TotalGiB <= 1024) || math.IsNaN(g.TotalGiB)):
		return e.fail("gpu.total_gib", "%v: want more than 0 and at most 1024", g.TotalGiB)
	}
	return nil
}

func (e *Entry) checkModel() error {
	m := &e.Model
	if m.HFID == "" {
		return e.fail("model.hf_id", "empty")
	}
	switch {
	case m.Catalog != "" && m.Config != "":
		return e.fail("model", "names both catalog %q and config %q; want one", m.Catalog, m.Config)
	case m.Config != "" && !validConfigPath(m.Config):
		return e.fail("model.config", "%q is not a .json under %s", cut(m.Config, 80), strings.Join(ConfigDirs, " or "))
	case m.Catalog == "" && m.Config == "" && !e.HasNote(Unplannable):
		return e.fail("model", "no catalog id and no config, and no note starting %q says why", Unplannable)
	}
	parts := strings.Split(m.Family, "+")
	for i, p := range parts {
		if !slices.Contains(Kinds, p) || slices.Contains(parts[:i], p) {
			return e.fail("model.family", "%q: want kinds of %v joined by '+', each once", cut(m.Family, 40), Kinds)
		}
	}
	return nil
}

func validConfigPath(p string) bool {
	if !strings.HasSuffix(p, ".json") || strings.Contains(p, "..") || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, d := range ConfigDirs {
		if rest, ok := strings.CutPrefix(p, d); ok && rest != ".json" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

func (e *Entry) checkConfig() error {
	keys := configKeys[e.Engine]
	for k, raw := range e.Config {
		kd, ok := keys[k]
		if !ok {
			return e.fail("config."+cut(k, 40), "not a %s launch key this corpus knows (keys.go)", e.Engine)
		}
		if err := checkValue(raw, kd); err != nil {
			return e.fail("config."+k, "%v", err)
		}
		if !slices.Contains(configFrom, e.ConfigFrom[k]) {
			return e.fail("config_from."+k, "%q: want one of %v", cut(e.ConfigFrom[k], 20), configFrom)
		}
	}
	for k := range e.ConfigFrom {
		if _, ok := e.Config[k]; !ok {
			return e.fail("config_from."+cut(k, 40), "names a key config does not hold")
		}
	}
	return nil
}

func (e *Entry) checkOutcome() error {
	if !slices.Contains(outcomes, e.Outcome) {
		return e.fail("outcome", "%q: want one of %v", cut(string(e.Outcome), 20), outcomes)
	}
	return nil
}

// HasNote reports whether one of e's notes starts with prefix.
func (e *Entry) HasNote(prefix string) bool {
	for _, n := range e.Notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
