package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/vramplan/vramplan/planner"
)

func cmdSolve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vramplan solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var in inputFlags
	in.register(fs)
	asJSON := fs.Bool("json", false, "print the solution as JSON")
	upTo := fs.Int("frontier", 64, "compute the frontier for batch 1..`n`")
	input, code := parseInput(fs, &in, args, stderr)
	if code >= 0 {
		return code
	}
	sol, err := planner.Solve(input, *upTo)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan solve: --frontier: %s\n", describeErr(err))
		return exitBadInput
	}
	if *asJSON {
		b, _ := json.MarshalIndent(sol, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return exitFits
	}
	printSolution(stdout, &input, &sol)
	return exitFits
}

func printSolution(w io.Writer, in *planner.Input, sol *planner.Solution) {
	fmt.Fprintf(w, "%s on %s, budget %s, KV %s\n\n", in.Model.ID, in.Calibration.ID, budget(in), in.Limits.KVDtype)
	fmt.Fprintf(w, "  largest max_seq_len at batch %d: %d tokens\n", max(in.Limits.MaxBatch, 1), sol.MaxSeqLen)
	fmt.Fprintf(w, "  largest max_batch at %d tokens: %d sequences\n\n", in.Limits.MaxSeqLen, sol.MaxBatch)
	fmt.Fprintf(w, "  %6s  %12s\n", "batch", "max_seq_len")
	prev := -1
	for _, p := range sol.Frontier {
		if p.MaxSeqLen != prev {
			fmt.Fprintf(w, "  %6d  %12d\n", p.Batch, p.MaxSeqLen)
		}
		prev = p.MaxSeqLen
	}
}

func budget(in *planner.Input) planner.Bytes {
	if in.Budget > 0 {
		return in.Budget
	}
	return in.Calibration.DeviceTotal
}
