// Command gpuagent enforces a vramplan plan on a GPU and serves KV blocks
// to engine processes.
//
// Usage:
//
//	gpuagent serve  --plan plan.json [--rank R] [--device N] [--backend vmm|cuda|fake] [--listen unix:PATH|HOST:PORT]
//	gpuagent report --listen unix:PATH | --plan plan.json [--json]
//	gpuagent soak   --listen unix:PATH [--clients 32] [--ops 100000] [--latency-batch 256 [--latency-form binary|json|both]]
//	gpuagent calibrate [--device N] [-o FILE] [--runs N] [--blas-dir DIR]... [--machine TEXT]
//
// calibrate measures what the GPU, its driver and platform charge (context,
// cuBLAS reserve, VMM granularity and latencies) and writes a calibration
// document in the planner's schema to FILE, or to standard output.
//
// Exit codes: 0 success, 1 refused or failed (a plan the device cannot
// hold, a soak that did not drain), 2 bad usage.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// commands is the dispatch table. calibrate-probe is the child process
// calibrate re-runs itself as; usage does not list it.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"serve":           cmdServe,
	"report":          cmdReport,
	"soak":            cmdSoak,
	"calibrate":       cmdCalibrate,
	"calibrate-probe": cmdProbe,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	cmd, ok := commands[args[0]]
	if !ok {
		if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
			usage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "gpuagent: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: gpuagent <command> [flags]

commands:
  serve      enforce a plan on a device and serve KV blocks to engines
  report     the memory report of a running agent (or a plan's planned side)
  soak       drive a running agent with many clients and check it drains
  calibrate  measure this GPU and write a calibration file

Run "gpuagent <command> -h" for a command's flags.
`)
}
