//go:build stdjson

package calibrations

// This file is the canonical codec under the stdjson tag, which `make
// worker` sets: the Workers build links encoding/json anyway and is held to
// 3 MB gzip, where the reflection-free decoder and writer of decode.go and
// format.go cost 17 KB. There a calibration is decoded and written by
// encoding/json, which those files are held to byte for byte, so an
// upload's canonical document and id are the same either way.

import (
	"encoding/json"

	"github.com/vramplan/vramplan/planner"
)

// fastDecode declines every document: Parse decodes with encoding/json.
func fastDecode([]byte, *planner.Calibration) (ok, canonical bool) { return false, false }

// Format returns the canonical encoding of c.
func Format(c *planner.Calibration) []byte {
	b, _ := json.MarshalIndent(c, "", "  ") // a NaN leaves b nil: "\n", as format.go gives
	return append(b, '\n')
}
