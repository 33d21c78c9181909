// Command gen writes table.go, the calibration table's JSON files as Go
// values, so that a program gets the table from its data segment instead
// of decoding it at start (a Cloudflare Worker starts a fresh instance for
// each request). Run it through go generate ./calibrations after adding or
// changing a file; the package's tests fail while table.go is stale, and
// they validate every entry as Parse does.
//
// It does not import package calibrations, so it still runs when table.go
// no longer compiles (a field of planner.Calibration renamed).
package main

import (
	"fmt"
	"os"

	"github.com/vramplan/vramplan/calibrations/internal/table"
)

func main() {
	src, err := table.Source(os.DirFS("."))
	if err == nil {
		err = os.WriteFile("table.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
