package main

import (
	"fmt"
	"io"

	"github.com/vramplan/vramplan/calibrations"
)

func cmdCalibrations(args []string, stdout, stderr io.Writer) int {
	all, err := calibrations.All()
	if err != nil {
		fmt.Fprintf(stderr, "vramplan calibrations: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "%-28s %-28s %-8s %10s %10s %10s\n", "id", "gpu", "platform", "total", "context", "library")
	for _, c := range all {
		fmt.Fprintf(stdout, "%-28s %-28s %-8s %10s %10s %10s\n", c.ID, c.GPU, c.Platform,
			c.DeviceTotal, c.Context, c.LibraryReserve)
	}
	return exitFits
}
