package calibrate

import (
	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// Schema is the schema identifier of the documents Run produces.
const Schema = planner.CalibrationSchema

// Calibration is a calibration document in the planner's schema; Run fills
// it and the calibrations table reads it.
type (
	Calibration = planner.Calibration
	VMM         = planner.VMM
	Latency     = planner.Latency
	Provenance  = planner.Provenance
)

// Format returns the canonical encoding of c, the form the calibrations
// table keeps.
func Format(c *Calibration) []byte { return calibrations.Format(c) }

// Validate reports the first field of c the calibrations table would reject.
func Validate(c *Calibration) error { return calibrations.Validate(c) }
