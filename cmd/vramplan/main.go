// Command vramplan plans GPU memory for serving a language model and serves
// the calculator.
//
// Usage:
//
//	vramplan plan  --model NAME|FILE --gpu CALIBRATION --max-batch N --max-seq-len N [flags]
//	vramplan plan  --engine llama.cpp|vllm|sglang --model … --gpu … [flags]
//	vramplan plan  --from-flags "ENGINE COMMAND LINE" --gpu CALIBRATION
//	vramplan solve --model NAME|FILE --gpu CALIBRATION [flags]
//	vramplan check --log FILE [--model NAME|FILE] --gpu CALIBRATION [--observation OUT]
//	vramplan observations [upload FILE --to URL [--yes] | list --from URL]
//	vramplan engines refit --logs DIR [--from URL]
//	vramplan engines refit --corpus ROOT [--json]
//	vramplan calibrations [upload FILE --to URL [--yes] | export --group KEY [--from URL] [-o FILE]]
//	vramplan models [WORD ...]
//	vramplan serve [--addr HOST:PORT]
//
// plan exits 0 when the plan fits, 1 when it does not (the report is still
// printed), and 2 for bad input, with a one-line error naming the flag or
// field.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitFits     = 0
	exitNoFit    = 1
	exitBadInput = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitBadInput
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) int{
		"plan": cmdPlan, "solve": cmdSolve, "check": cmdCheck, "calibrations": cmdCalibrations, "serve": cmdServe,
		"models": cmdModels, "observations": cmdObservations, "engines": cmdEngines,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
			usage(stdout)
			return exitFits
		}
		fmt.Fprintf(stderr, "vramplan: unknown command %q\n", args[0])
		usage(stderr)
		return exitBadInput
	}
	return cmd(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: vramplan <command> [flags]

commands:
  plan          plan memory for a model, limits and GPU; exit 0 fits, 1 does not, 2 bad input
                (--engine llama.cpp|vllm|sglang plans under that engine's rules and prints its
                launch command; --from-flags "llama-server …" reads an engine command line)
  solve         the largest max-seq-len, the largest batch and the fit frontier
  check         read an engine's start-up log (--log), plan what it states, show plan against log;
                --observation FILE writes the log's engine observation
  observations  'upload FILE --to URL' sends an engine observation; 'list --from URL' lists a server's
  engines       'refit --logs DIR [--from URL]' refits the llama.cpp profile's estimated constants
  calibrations  list the embedded GPU calibrations; 'upload FILE --to URL' sends one to a server,
                'export --group KEY -o FILE' writes a community aggregate as a table entry
  models        list the model catalog, or search it: vramplan models qwen3 q8
  serve         serve the browser calculator (default 127.0.0.1:8080)

Run 'vramplan <command> -h' for a command's flags.
`)
}
