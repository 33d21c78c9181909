// Command gpuagent is the GPU-side agent of vramplan.
//
// Usage:
//
//	gpuagent calibrate [--device N] [-o FILE] [--runs N] [--blas-dir DIR]... [--machine TEXT]
//
// calibrate measures what the GPU, its driver and platform charge (context,
// cuBLAS reserve, VMM granularity and latencies) and writes a calibration
// document in the planner's schema to FILE, or to standard output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// A command is one subcommand of gpuagent.
type command struct {
	summary string // one line for usage; empty hides the command
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is the dispatch table. A later issue adds "serve".
var commands = map[string]command{
	"calibrate":       {"measure this GPU and write a calibration file", runCalibrate},
	"calibrate-probe": {"", runProbe}, // the child calibrate re-runs itself as
}

func main() {
	if err := dispatch(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gpuagent:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gpuagent COMMAND [flags]\n\ncommands:")
	var names []string
	for n, c := range commands {
		if c.summary != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
}

// dirs is a repeatable string flag.
type dirs []string

func (d *dirs) String() string     { return strings.Join(*d, ",") }
func (d *dirs) Set(v string) error { *d = append(*d, v); return nil }

// defaultBLASDirs are searched for cuBLAS when no --blas-dir is given.
var defaultBLASDirs = []string{"", "/usr/local/cuda/lib64"}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gpuagent "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
