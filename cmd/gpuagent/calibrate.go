package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations/community/upload"
	"github.com/vramplan/vramplan/gpuagent/calibrate"
)

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", stderr)
	var opts calibrate.Options
	var blas dirs
	out := fs.String("o", "", "write the calibration to `FILE` instead of standard output")
	fs.IntVar(&opts.Device, "device", 0, "CUDA device `ordinal`")
	fs.IntVar(&opts.Runs, "runs", 3, "fresh processes per figure and module-loading mode")
	fs.Var(&blas, "blas-dir", "`directory` to look for cuBLAS in (repeatable)")
	fs.StringVar(&opts.Machine, "machine", "", "provenance: the host, in words")
	uploadTo := fs.String("upload", "", "after measuring, send the calibration to the vramplan server at `URL` (it is shown first, and asked)")
	yes := fs.Bool("yes", false, "with --upload: send without asking")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: calibrate takes no arguments, got %q", errUsage, fs.Args())
	}
	opts.BLASDirs = blasDirs(blas)
	opts.Command = commandLine(args)
	opts.Log = stderr
	c, _, err := calibrate.Run(opts)
	if err != nil {
		return err
	}
	if err := calibrate.Validate(c); err != nil {
		return fmt.Errorf("the measured calibration fails the table's validation: %w", err)
	}
	data := calibrate.Format(c)
	if *uploadTo != "" {
		if *out != "" {
			if err := os.WriteFile(*out, data, 0o644); err != nil {
				return err
			}
		}
		return sendCalibration(data, *uploadTo, *yes, stdout)
	}
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	fmt.Fprintf(stderr, "calibrate: wrote %s (%s)\n", *out, c.ID)
	return os.WriteFile(*out, data, 0o644)
}

// stdin is where --upload reads its confirmation; tests replace it.
var stdin io.Reader = os.Stdin

// sendCalibration shows, confirms and uploads a measured calibration.
func sendCalibration(data []byte, to string, yes bool, stdout io.Writer) error {
	body, _, err := upload.Prepare(data, upload.ThisMachine())
	if err != nil {
		return fmt.Errorf("the server would refuse this calibration: %w", err)
	}
	ok, err := upload.Confirm(stdout, stdin, strings.TrimSuffix(to, "/")+"/api/uploads", body, yes)
	if err != nil || !ok {
		fmt.Fprintln(stdout, "not sent")
		return err
	}
	a, err := upload.Send(context.Background(), to, body)
	if err != nil {
		return err
	}
	a.Report(stdout, to)
	if !a.OK() {
		return fmt.Errorf("the upload was refused (%d)", a.Code)
	}
	return nil
}

func runProbe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate-probe", stderr)
	var opts calibrate.ProbeOptions
	var blas dirs
	fs.IntVar(&opts.Device, "device", 0, "CUDA device `ordinal`")
	fs.Var(&blas, "blas-dir", "`directory` to look for cuBLAS in (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: calibrate-probe takes one probe name, got %q", errUsage, fs.Args())
	}
	opts.BLASDirs = blasDirs(blas)
	return calibrate.Probe(fs.Arg(0), opts, stdout)
}

func blasDirs(given dirs) []string {
	if len(given) == 0 {
		return defaultBLASDirs
	}
	return given
}

// commandLine returns how calibrate was run, quoting arguments that need it.
func commandLine(args []string) string {
	words := []string{"gpuagent", "calibrate"}
	for i := 0; i < len(args); i++ {
		if skip, withValue := notMeasuring(args[i]); skip {
			if withValue {
				i++
			}
			continue
		}
		a := args[i]
		if a == "" || strings.ContainsAny(a, " \t\"'$\\") {
			a = strconv.Quote(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// notMeasuring reports whether arg is a flag that says where the result
// goes rather than how it was measured (-o, --upload, --yes), which the
// recorded command leaves out: an upload URL is often an address the
// server would refuse as identifying, and an output path says nothing of
// the card. withValue reports that the flag's value is the next argument.
func notMeasuring(arg string) (skip, withValue bool) {
	name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if !strings.HasPrefix(arg, "-") {
		return false, false
	}
	switch name {
	case "o", "upload":
		return true, !hasValue
	case "yes":
		return true, false
	}
	return false, false
}

// errUsage marks a calibrate error as bad usage (exit 2).
var errUsage = errors.New("usage")

// cmdCalibrate and cmdProbe adapt the calibrate commands to the dispatch
// table's exit codes.
func cmdCalibrate(args []string, stdout, stderr io.Writer) int {
	return exitCode("calibrate", runCalibrate(args, stdout, stderr), stderr)
}

func cmdProbe(args []string, stdout, stderr io.Writer) int {
	err := runProbe(args, stdout, stderr)
	if code := exitCode("calibrate-probe", err, stderr); code != exitFail || !calibrate.NoGPU(err) {
		return code
	}
	return calibrate.ExitNoGPU // calibrate.Run reads it as ErrNoGPU
}

// noGPU is what calibrate says on a machine with no GPU to measure.
const noGPU = `this machine has no NVIDIA GPU with its driver loaded (no libcuda.so.1, or a driver that sees no device at the --device ordinal asked), ` +
	`so there is nothing to measure. Run gpuagent calibrate on the machine that has the card, with the NVIDIA driver ` +
	`installed (nvidia-smi lists the card there); to plan for a card you do not have, vramplan plan --gpu <card> ` +
	`uses the table's figures for it (vramplan calibrations lists them)`

func exitCode(name string, err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "gpuagent %s: %v\n", name, err)
		return exitUsage
	case errors.Is(err, calibrate.ErrNoGPU):
		fmt.Fprintf(stderr, "gpuagent %s: %s\n", name, noGPU)
		return exitFail
	}
	fmt.Fprintf(stderr, "gpuagent %s: %v\n", name, err)
	return exitFail
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
