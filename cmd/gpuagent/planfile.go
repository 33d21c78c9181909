package main

import (
	"fmt"
	"io"
	"os"

	"github.com/vramplan/vramplan/planner"
)

// readPlanFile reads a plan document for serve and report: a regular file
// (a device or FIFO is refused before it is opened) read through a limit of
// planner.MaxDocument bytes, so /dev/zero or a 2 GB file costs no more
// than the limit (serve --plan /dev/zero once reached 2.8 GB).
func readPlanFile(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, planner.MaxDocument+1))
	if err == nil && len(data) > planner.MaxDocument {
		err = fmt.Errorf("%s is more than %d bytes, the most a plan document may be", path, planner.MaxDocument)
	}
	return data, err
}
