package corpus

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// A band is the releases of an engine whose start-ups are counted
// together. The bands are the planner's (planner/residual_bands.go), so
// that the corpus files a run in the class a plan of it looks up.

// Band is a range of releases of one engine.
type Band = planner.ResidualBand

// Bands lists every band, in the residual table's order.
var Bands = planner.ResidualBands

// BandOf returns the band of e's version: a release ("0.10.1.1",
// "0.5.2rc2"), a release known only to its minor version ("unknown-0.4"),
// an era ("unknown-v0", "unknown-v1", SGLang's "unknown") or an SGLang
// source build ("main@<commit>", "0.0.0.dev<n>").
func BandOf(e *Entry) (Band, error) {
	i, ok := bandIndex(planner.EngineName(e.Engine), e.Version)
	if !ok {
		var names []string
		for _, b := range Bands {
			if b.Engine == planner.EngineName(e.Engine) {
				names = append(names, b.Name)
			}
		}
		return Band{}, e.fail("version", "%q is in no %s band (%s)", cut(e.Version, 40), e.Engine, strings.Join(names, "; "))
	}
	return Bands[i], nil
}

// bandIndex is the index in Bands of engine e's version v.
func bandIndex(e planner.EngineName, v string) (int, bool) {
	sp := readVersion(v)
	if sp.release == "" {
		for i, b := range Bands {
			if b.Engine == e && b.Era != "" && b.Era == sp.era {
				return i, true
			}
		}
		return -1, false
	}
	r, _ := planner.ParseVersion(sp.release) // readVersion parsed it
	return planner.ReleaseBand(e, r)
}

// spelling is a corpus version read: the release it names, as the
// planner reads serving.version, or else its era, as a band names one.
type spelling struct {
	// release is a release the planner parses, at least a major and a
	// minor number: "0.10.1.1", or "0.4" for "unknown-0.4"; "" when the
	// version names none.
	release string
	// era is what a version that names no release is filed by: "main"
	// for every source build ("main@<commit>", "0.0.0.dev<n>"), the
	// version itself otherwise ("unknown-v0", "unknown-v1", "unknown").
	era string
}

// readVersion reads every spelling of a version the corpus holds, for
// both the band a run is filed in (bandIndex) and the release it is
// planned under (Release). An era's "v1" in "unknown-v1" is no release:
// planner.ParseVersion alone would read it as 1.0.
func readVersion(v string) spelling {
	if strings.HasPrefix(v, "main@") || strings.HasPrefix(v, "0.0.0.dev") {
		return spelling{era: "main"}
	}
	rel := strings.TrimPrefix(v, "unknown-")
	if !isMinorRelease(rel) {
		return spelling{era: v}
	}
	if _, err := planner.ParseVersion(rel); err != nil {
		return spelling{era: v}
	}
	return spelling{release: rel}
}

// isMinorRelease reports whether s opens with a release's major and minor
// numbers, "0.4", as a band's release must (an era's "v1" is none).
func isMinorRelease(s string) bool {
	dot := strings.IndexByte(s, '.')
	return dot > 0 && dot+1 < len(s) && allDigits(s[:dot]) && isDigit(s[dot+1])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
