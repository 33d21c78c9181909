// Command vramplan plans GPU memory for serving a language model and serves
// the calculator.
//
// Usage:
//
//	vramplan plan  --model NAME|FILE --gpu CALIBRATION --max-batch N --max-seq-len N [flags]
//	vramplan plan  --engine llama.cpp|vllm|sglang --model … --gpu … [flags]
//	vramplan plan  --from-flags "ENGINE COMMAND LINE" --gpu CALIBRATION
//	vramplan solve --model NAME|FILE --gpu CALIBRATION [flags]
//	vramplan gpus  --model NAME|FILE --max-seq-len N [--max-batch N] [--engine E] [--json] [--sort COLUMN] [--min-memory SIZE] [--label KIND]
//	vramplan check --log FILE [--model NAME|FILE] --gpu CALIBRATION [--observation OUT]
//	vramplan observations [upload FILE --to URL [--yes] | list --from URL]
//	vramplan engines refit --logs DIR [--from URL]
//	vramplan engines refit --corpus ROOT [--json]
//	vramplan calibrations [upload FILE --to URL [--yes] | export --group KEY [--from URL] [-o FILE]]
//	vramplan models [WORD ...]
//	vramplan serve [--addr HOST:PORT]
//	vramplan version
//	vramplan completion bash|zsh|fish
//
// plan exits 0 when the plan fits, 1 when it does not (the report is still
// printed), and 2 for bad input, with a one-line error naming the flag or
// field.
package main

import (
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
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		return cmdVersion(nil, stdout, stderr)
	}
	return dispatch("vramplan", commands(), args, stdout, stderr)
}
