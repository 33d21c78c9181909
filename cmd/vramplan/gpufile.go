package main

import (
	"os"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// lookupGPU returns the calibration a --gpu value names, and what the
// resolver said about it: a file when it names one (a path, or a name
// ending in .json), else an entry of the table as calibrations.Resolve
// finds it (an id, or the card as people name it, its Linux entry first).
func lookupGPU(name string) (planner.Calibration, string, error) {
	if !strings.ContainsRune(name, os.PathSeparator) && !strings.HasSuffix(name, ".json") {
		all, _ := calibrations.All() // never an error
		return calibrations.Resolve(name, all, nil)
	}
	data, err := readLimited(name)
	if err != nil {
		return planner.Calibration{}, "", err
	}
	c, err := calibrations.Parse(data)
	return c, "", err
}
