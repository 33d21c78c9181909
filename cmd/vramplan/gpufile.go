package main

import (
	"os"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// lookupGPU returns the calibration a --gpu value names: a file when it
// names one (a path, or a name ending in .json), else a table id or prefix.
func lookupGPU(name string) (planner.Calibration, error) {
	if !strings.ContainsRune(name, os.PathSeparator) && !strings.HasSuffix(name, ".json") {
		return calibrations.Lookup(name)
	}
	data, err := readLimited(name)
	if err != nil {
		return planner.Calibration{}, err
	}
	return calibrations.Parse(data)
}
