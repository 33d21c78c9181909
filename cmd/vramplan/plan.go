package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

func cmdPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan plan", stderr)
	var in inputFlags
	in.register(fs)
	asJSON := fs.Bool("json", false, "print the plan document instead of the report")
	out := fs.String("o", "", "also write the plan document to `file`")
	input, code := parseInput(fs, &in, args, stderr)
	if code >= 0 {
		return code
	}
	for _, n := range in.notes {
		fmt.Fprintf(stderr, "vramplan plan: --from-flags: %s\n", n)
	}
	p, err := planner.Report(input)
	var f *planner.Failure
	if err != nil && !errors.As(err, &f) {
		fmt.Fprintf(stderr, "vramplan plan: %s\n", describeErr(err))
		return exitBadInput
	}
	if *out != "" {
		if err := os.WriteFile(*out, p.JSON(), 0o644); err != nil {
			fmt.Fprintf(stderr, "vramplan plan: -o: %v\n", err)
			return exitBadInput
		}
	}
	if *asJSON {
		stdout.Write(p.JSON())
	} else {
		fmt.Fprintf(stdout, "%s on %s\n\n", cmp.Or(input.Model.Name, input.Model.ID), gpuTitle(&input))
		fmt.Fprint(stdout, withEstimate(p.Text(), calc.Estimate(&p)))
	}
	if !p.Fits {
		return exitNoFit
	}
	return exitFits
}

// gpuTitle names the GPUs an input plans on, platform and kind included:
// "NVIDIA GeForce RTX 5090 under Linux, estimated (est-rtx5090-linux)".
func gpuTitle(in *planner.Input) string {
	cs := in.Parallel.Calibrations
	if len(cs) == 0 {
		cs = []planner.Calibration{in.Calibration}
	}
	var names []string
	for i := range cs {
		n := calibrations.Describe(&cs[i]) + " (" + cs[i].ID + ")"
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " and ")
}

// parseInput parses the flags and builds the input. It returns a
// non-negative exit code when the command must stop.
func parseInput(fs *flag.FlagSet, in *inputFlags, args []string, stderr io.Writer) (planner.Input, int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return planner.Input{}, exitFits
		}
		return planner.Input{}, exitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return planner.Input{}, exitBadInput
	}
	input, err := in.build(fs)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), err)
		return input, exitBadInput
	}
	for _, n := range in.gpuNotes {
		fmt.Fprintf(stderr, "%s: --gpu: %s\n", fs.Name(), n)
	}
	if in.everyGPU { // planner.GPUs validates it on each calibration
		return input, -1
	}
	if err := planner.Validate(&input); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), describeErr(err))
		return input, exitBadInput
	}
	return input, -1
}

// withEstimate puts the sentence that says a plan's GPU figures are
// estimated (calc.Estimate, the page's words) under the verdict, the
// report's first paragraph.
func withEstimate(text, estimate string) string {
	if estimate == "" {
		return text
	}
	if i := strings.Index(text, "\n\n"); i >= 0 {
		return text[:i+1] + estimate + "\n" + text[i+1:]
	}
	return text + estimate + "\n"
}
