package calc

import (
	"github.com/vramplan/vramplan/planner"
)

// This file says, beside the verdict, that a plan rests on an estimated
// calibration: the figures copied from another card, and how much less
// memory than planned the card may leave (the calibration's uncertainty).
// The CLI prints the same sentence under its verdict.

// Estimate returns the sentence that says plan p's GPU figures are
// estimated and how far off they can be, with a warning when the verdict
// rests on less headroom than that; "" when the GPU's calibration is
// measured or a community one. A layout is judged by its binding rank.
func Estimate(p *planner.Plan) string {
	b := bindingPlan(p)
	c := &b.Input.Calibration
	if c.Kind() != planner.CalibrationEstimated {
		return ""
	}
	u := c.Provenance.Uncertainty
	s := "Estimated, not measured: " + c.ID + " copies its figures from a measured card"
	if u <= 0 {
		return s + ", and how far off they are is not known."
	}
	s += ", and this card may leave up to " + sizeOf(u) + " less than planned."
	switch {
	case b.Engine != nil && b.Engine.Pool != nil && b.Engine.Pool.PoolBytes > 0:
		// The engine sizes its KV pool from what the card has: it shrinks.
		s += " The engine's KV pool, sized from what the card has, may be that much smaller."
	case b.Fits && b.Headroom < u:
		s += " The " + sizeOf(b.Headroom) + " to spare is less than that: it may not fit."
	}
	return s
}

// estimateURL is where the calibrations page says how p's estimated
// calibration was estimated; "" for a measured or community one.
func estimateURL(p *planner.Plan) string {
	if c := &p.Input.Calibration; c.Kind() == planner.CalibrationEstimated {
		return "/calibrations#" + c.ID
	}
	return ""
}
