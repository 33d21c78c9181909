package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"

	"github.com/vramplan/vramplan/planner"
)

func cmdSolve(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan solve", stderr)
	var in inputFlags
	in.register(fs)
	asJSON := fs.Bool("json", false, "print the solution as JSON")
	upTo := fs.Int("frontier", 64, "compute the frontier for batch 1..`n`")
	minGPUs := fs.Bool("min-gpus", false, "answer how many GPUs of this calibration fit the limits, and in which layout")
	input, code := parseInput(fs, &in, args, stderr)
	if code >= 0 {
		return code
	}
	if *minGPUs {
		return solveMinGPUs(&input, *asJSON, stdout, stderr)
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
	fmt.Fprintf(w, "%s on %s, budget %s, KV %s\n\n", in.Model.ID, in.Calibration.ID, budget(in),
		cmp.Or(in.Limits.KVDtype, planner.KVDtypeF16))
	if nothingFits(sol) {
		fmt.Fprintf(w, "  nothing fits, at any batch or length: %s\n", whyNot(in))
		return
	}
	trained := in.Model.MaxContext
	fmt.Fprintf(w, "  largest max_seq_len at batch %d: %d tokens%s\n", max(in.Limits.MaxBatch, 1), sol.MaxSeqLen, past(sol.MaxSeqLen, trained))
	fmt.Fprintf(w, "  largest max_batch at %d tokens: %d sequences\n\n", in.Limits.MaxSeqLen, sol.MaxBatch)
	fmt.Fprintf(w, "  %6s  %12s\n", "batch", "max_seq_len")
	prev, marked := -1, past(sol.MaxSeqLen, trained) != ""
	for _, p := range sol.Frontier {
		if p.MaxSeqLen != prev {
			fmt.Fprintf(w, "  %6d  %12d%s\n", p.Batch, p.MaxSeqLen, past(p.MaxSeqLen, trained))
			marked = marked || past(p.MaxSeqLen, trained) != ""
		}
		prev = p.MaxSeqLen
	}
	if marked {
		fmt.Fprintf(w, "\n  * past the model's trained context of %d tokens\n", trained)
	}
}

// past marks a length past the model's trained context.
func past(n, trained int) string {
	if trained > 0 && n > trained {
		return " *"
	}
	return ""
}

func nothingFits(sol *planner.Solution) bool {
	for _, p := range sol.Frontier {
		if p.MaxSeqLen > 0 {
			return false
		}
	}
	return sol.MaxSeqLen == 0
}

// whyNot is the failure report's reason for a plan that fits nowhere.
func whyNot(in *planner.Input) string {
	if p, _ := planner.Report(*in); p.Failure != nil {
		return p.Failure.Message
	}
	return "not one token fits"
}

func budget(in *planner.Input) planner.Bytes {
	if in.Budget > 0 {
		return in.Budget
	}
	return in.Calibration.DeviceTotal
}
