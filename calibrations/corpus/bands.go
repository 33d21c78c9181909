package corpus

import "github.com/vramplan/vramplan/planner"

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
	i, err := planner.BandOf(planner.EngineName(e.Engine), e.Version)
	if err != nil {
		return Band{}, e.fail("version", "%s", err.Error())
	}
	return Bands[i], nil
}
