package planner

import "strconv"

// This file is the engine releases a profile's rules cover. Engines change
// how they size memory between releases (vLLM's V0 profile run, V1's
// CUDA-graph estimate, SGLang's sliding-window pools), so each profile
// states the ranges of releases its rules were read for, each with the
// release it was read at. A range is where a profile's per-release rules
// attach: a profile whose rules differ by release lists one range per set
// of rules.

// Version is an engine release as its numbers: vLLM's and SGLang's
// "0.22.1" (up to three numbers), llama.cpp's build "b12072" (one). Its
// zero value is no release. Versions compare number by number.
type Version struct {
	n     [3]int32
	build bool // a llama.cpp build number, written with its b
}

// maxVersionPart bounds one number of a release.
const maxVersionPart = 1 << 30

// ParseVersion reads a release: an optional v or b (a build), then up to
// three dot-separated numbers; what follows the last number ("rc1",
// ".post1", "+cu128", " (81ff7abe)") is not part of the release.
func ParseVersion(s string) (Version, error) {
	var v Version
	rest := s
	if len(rest) > 0 && (rest[0] == 'v' || rest[0] == 'V') {
		rest = rest[1:]
	} else if len(rest) > 0 && rest[0] == 'b' {
		rest, v.build = rest[1:], true
	}
	for i := 0; i < len(v.n); i++ {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 {
			if i == 0 {
				return Version{}, bad(versionField, "%q is not a release (want one like 0.22.1 or b12072)", s)
			}
			break
		}
		n, err := strconv.Atoi(rest[:j])
		if err != nil || n > maxVersionPart {
			return Version{}, bad(versionField, "%q has a number out of range", s)
		}
		v.n[i], rest = int32(n), rest[j:]
		if v.build || len(rest) < 2 || rest[0] != '.' || rest[1] < '0' || rest[1] > '9' {
			break
		}
		rest = rest[1:]
	}
	return v, nil
}

// IsZero reports whether v is the zero Version, no release.
func (v Version) IsZero() bool { return v == Version{} }

// Compare returns -1, 0 or +1 as v is before, the same as or after w.
func (v Version) Compare(w Version) int {
	for i := range v.n {
		switch {
		case v.n[i] < w.n[i]:
			return -1
		case v.n[i] > w.n[i]:
			return 1
		}
	}
	return 0
}

// String writes v as its engine writes it: "b12072", "0.22", "0.4.4".
func (v Version) String() string {
	if v.build {
		return "b" + strconv.Itoa(int(v.n[0]))
	}
	s := strconv.Itoa(int(v.n[0])) + "." + strconv.Itoa(int(v.n[1]))
	if v.n[2] != 0 {
		s += "." + strconv.Itoa(int(v.n[2]))
	}
	return s
}

// VersionRange is releases one set of a profile's rules covers: From up
// to, not including, Until; a zero Until is every later release.
type VersionRange struct {
	// Name is how people name the range ("V1 engine"); it may be empty.
	Name        string
	From, Until Version
	// ReadAt is the release the rules were read from, as the plan states
	// it ("vLLM 0.22 (V1 engine)").
	ReadAt string
}

// Contains reports whether release v is in r.
func (r VersionRange) Contains(v Version) bool {
	return v.Compare(r.From) >= 0 && (r.Until.IsZero() || v.Compare(r.Until) < 0)
}

// String writes r for a person: "0.22 and later", "0.8 up to 0.21".
func (r VersionRange) String() string {
	s := r.From.String() + " and later"
	if !r.Until.IsZero() {
		s = r.From.String() + " up to " + r.Until.String()
	}
	if r.Name != "" {
		s += " (" + r.Name + ")"
	}
	return s
}

// release is the Version major.minor.patch, build the llama.cpp build n.
func release(major, minor, patch int32) Version { return Version{n: [3]int32{major, minor, patch}} }
func build(n int32) Version                     { return Version{n: [3]int32{n}, build: true} }

// band returns the index in p.Versions of the range that holds release s,
// the newest range for "" and for a release no range holds (validation
// refuses those before any plan).
func (p *Profile) band(s string) int {
	last := len(p.Versions) - 1
	if s == "" {
		return last
	}
	v, err := ParseVersion(s)
	if err != nil {
		return last
	}
	for i, r := range p.Versions {
		if r.Contains(v) {
			return i
		}
	}
	return last
}

// rangeOf returns the range of in's engine release that the plan follows.
func (p *Profile) rangeOf(in *Input) VersionRange { return p.Versions[p.band(in.Serving.Version)] }

// versionField is the input field of an engine's release.
const versionField = "serving.version"

// validateVersion refuses a release that is not one, or that no range of
// the profile covers, naming the ranges; the seed's engine has none.
func validateVersion(in *Input, p *Profile) error {
	s := in.Serving.Version
	if s == "" {
		return nil
	}
	if p == nil {
		return bad(versionField, "%q is a release of an engine, and vramplan's own engine has none: pick an engine", s)
	}
	v, err := ParseVersion(s)
	if err == nil {
		_, err = p.Range(v)
	}
	return err
}

// PlannedAs names, for a person, the release whose rules e's plan followed
// ("vLLM 0.22 (V1 engine)") and, when the input named a release of its own
// that the rules were not read at, that release too ("vLLM 0.29.0, by the
// rules read at vLLM 0.22 (V1 engine)"), so that a plan of a 0.29 log is
// not taken for a plan of 0.22.
func PlannedAs(e *EngineReport) string {
	if e.Release == "" {
		return e.Version
	}
	label := string(e.Engine)
	if p := profileOf(e.Engine); p != nil {
		label = p.Label
	}
	return label + " " + e.Release + ", by the rules read at " + e.Version
}
