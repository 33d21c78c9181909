package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// calibrationTable returns the table the commands plan on, wrapping
// calibrations.All's error with what it is. A test replaces it to hold the
// commands to returning that error rather than planning on an empty table.
var calibrationTable = func() ([]planner.Calibration, error) {
	all, err := calibrations.All()
	if err != nil {
		return nil, fmt.Errorf("the calibration table: %w", err)
	}
	return all, nil
}

// lookupGPU returns the calibration a --gpu value names, and what the
// resolver said about it: a file when it names one (a path, or a name
// ending in .json), else an entry of the table as calibrations.Resolve
// finds it (an id, or the card as people name it, its Linux entry first).
func lookupGPU(name string) (planner.Calibration, string, error) {
	if !strings.ContainsRune(name, os.PathSeparator) && !strings.HasSuffix(name, ".json") {
		all, err := calibrationTable()
		if err != nil {
			return planner.Calibration{}, "", err
		}
		return calibrations.Resolve(name, all, nil)
	}
	data, err := readLimited(name)
	if err != nil {
		return planner.Calibration{}, "", err
	}
	c, err := calibrations.Parse(data)
	return c, "", err
}
