package corpus

import (
	"strconv"
	"strings"
)

// A band is the releases of an engine whose start-ups are counted
// together: releases between which the engine sized memory the same way
// as far as the corpus can tell (vLLM's V0 engine to 0.7, V1 from 0.8,
// the CUDA-graph estimate taken out first from 0.21), cut finer where
// the corpus has enough runs to tell the bands apart.

// Band is a range of releases of one engine.
type Band struct {
	Engine string
	// Name is how the residual table names it: "vLLM 0.10–0.11 (V1)".
	Name string
	// From and Until are major.minor releases, Until excluded; an era
	// band (a release not known better than its engine) has neither and
	// is matched by its Era.
	From, Until minor
	Era         string
}

// minor is a release's major and minor numbers.
type minor struct{ major, minor int }

func (m minor) before(n minor) bool {
	return m.major < n.major || m.major == n.major && m.minor < n.minor
}

var never = minor{1 << 30, 0}

// Bands lists every band, in the residual table's order.
var Bands = []Band{
	{Engine: EngineVLLM, Name: "vLLM 0.2–0.3 (V0)", From: minor{0, 2}, Until: minor{0, 4}},
	{Engine: EngineVLLM, Name: "vLLM 0.4–0.5 (V0)", From: minor{0, 4}, Until: minor{0, 6}},
	{Engine: EngineVLLM, Name: "vLLM 0.6–0.7 (V0)", From: minor{0, 6}, Until: minor{0, 8}},
	{Engine: EngineVLLM, Name: "vLLM V0, release not known", Era: "unknown-v0"},
	{Engine: EngineVLLM, Name: "vLLM 0.8–0.9 (V1)", From: minor{0, 8}, Until: minor{0, 10}},
	{Engine: EngineVLLM, Name: "vLLM 0.10–0.11 (V1)", From: minor{0, 10}, Until: minor{0, 12}},
	{Engine: EngineVLLM, Name: "vLLM 0.12–0.20 (V1)", From: minor{0, 12}, Until: minor{0, 21}},
	{Engine: EngineVLLM, Name: "vLLM 0.21 and later (V1)", From: minor{0, 21}, Until: never},
	{Engine: EngineVLLM, Name: "vLLM V1, release not known", Era: "unknown-v1"},
	{Engine: EngineSGLang, Name: "SGLang 0.3", From: minor{0, 3}, Until: minor{0, 4}},
	{Engine: EngineSGLang, Name: "SGLang 0.4", From: minor{0, 4}, Until: minor{0, 5}},
	{Engine: EngineSGLang, Name: "SGLang 0.5", From: minor{0, 5}, Until: never},
	{Engine: EngineSGLang, Name: "SGLang main (a source build)", Era: "main"},
	{Engine: EngineSGLang, Name: "SGLang, release not known", Era: "unknown"},
}

// BandOf returns the band of e's version: a release ("0.10.1.1",
// "0.5.2rc2"), a release known only to its minor version ("unknown-0.4"),
// an era ("unknown-v0", "unknown-v1", SGLang's "unknown") or an SGLang
// source build ("main@<commit>", "0.0.0.dev<n>").
func BandOf(e *Entry) (Band, error) {
	v := e.Version
	era := v
	if strings.HasPrefix(v, "main@") || strings.HasPrefix(v, "0.0.0.dev") {
		era = "main"
	}
	rel, known := parseMinor(strings.TrimPrefix(v, "unknown-"))
	for _, b := range Bands {
		if b.Engine != e.Engine {
			continue
		}
		if b.Era != "" && b.Era == era || b.Era == "" && era != "main" && known && !rel.before(b.From) && rel.before(b.Until) {
			return b, nil
		}
	}
	return Band{}, e.fail("version", "%q is in no %s band (bands.go)", cut(v, 40), e.Engine)
}

// parseMinor reads "major.minor" from the start of s.
func parseMinor(s string) (minor, bool) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return minor{}, false
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(leadingDigits(parts[1]))
	if err1 != nil || err2 != nil || a < 0 || b < 0 || a > 1<<20 || b > 1<<20 {
		return minor{}, false
	}
	return minor{a, b}, true
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i]
}

// String is the band's name.
func (b Band) String() string { return b.Name }
