package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/calibrations/refit"
	"github.com/vramplan/vramplan/planner"
)

// cmdRefit refits the llama.cpp profile's estimated constants from a
// validation grid's logs and a server's uploaded observations, and prints
// the constants before and after and every observation's residuals.
func cmdRefit(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan engines refit", stderr)
	logs := fs.String("logs", "", "a llama.cpp validation grid `dir` as scripts/llamacpp/device-run.sh writes it (planner/testdata/engines/llamacpp-h200)")
	from := fs.String("from", "", "also read the observations uploaded to the vramplan server at `URL`")
	root := fs.String("corpus", "", "refit vLLM's estimated constants from the corpus of real start-ups under the repository `root` instead ("+corpus.Dir+")")
	asJSON := fs.Bool("json", false, "print the constants before and after, each fit and every residual as JSON (with --corpus, the corpus refit)")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	switch {
	case *root != "" && (*logs != "" || *from != ""):
		fmt.Fprintln(stderr, "vramplan engines refit: --corpus refits vLLM from the corpus alone; give it without --logs and --from")
		return exitBadInput
	case *root != "":
		return refitCorpus(*root, *asJSON, stdout, stderr)
	case *logs == "" && *from == "":
		fmt.Fprintln(stderr, "vramplan engines refit: give --logs DIR, --from URL or both, or --corpus ROOT")
		return exitBadInput
	}
	var srcs []refit.Source
	var skipped []refit.Row
	if *logs != "" {
		grid, err := refit.Grid(*logs)
		if err != nil {
			fmt.Fprintf(stderr, "vramplan engines refit: --logs: %v\n", err)
			return exitBadInput
		}
		srcs = append(srcs, grid...)
	}
	if *from != "" {
		up, held, err := uploaded(*from)
		if err != nil {
			fmt.Fprintf(stderr, "vramplan engines refit: --from: %v\n", err)
			return exitBadInput
		}
		srcs, skipped = append(srcs, up...), held
	}
	all, err := calibrations.All()
	if err != nil {
		fmt.Fprintf(stderr, "vramplan engines refit: %v\n", err)
		return exitBadInput
	}
	r := refit.Refit(srcs, refit.Table(all))
	r.Rows = append(r.Rows, skipped...)
	if *asJSON {
		return writeJSON(stdout, struct {
			Version      string `json:"version"`
			Observations int    `json:"observations"`
			*refit.Result
		}{planner.LlamaCppVersion, len(srcs), &r})
	}
	printRefit(stdout, &r, len(srcs))
	return exitFits
}

// uploaded reads a server's observations: the accepted ones to refit from,
// and a row for each it holds.
func uploaded(base string) ([]refit.Source, []refit.Row, error) {
	list, err := fetchObservations(base, "")
	if err != nil {
		return nil, nil, err
	}
	var srcs []refit.Source
	var held []refit.Row
	for _, l := range list {
		ch, err := observation.Check(l.Observation)
		name := "upload " + shown(l.ID)
		switch {
		case err != nil:
			held = append(held, refit.Row{Name: name, Skipped: "unreadable: " + shown(err.Error())})
		case l.Status != "accepted":
			held = append(held, refit.Row{Name: name, Engine: ch.Observation.Engine, Skipped: "held by the server: " + shown(strings.Join(l.Reasons, "; "))})
		default:
			srcs = append(srcs, refit.Source{Name: name, Observation: ch.Observation})
		}
	}
	return srcs, held, nil
}

func printRefit(w io.Writer, r *refit.Result, n int) {
	fmt.Fprintf(w, "%s: %d observations\n\n", planner.LlamaCppVersion, n)
	fmt.Fprintf(w, "  %-72s %10s %10s\n", "constant (planner.LlamaCppFit)", "code", "refit")
	for _, c := range []struct {
		name     string
		fit      *refit.Fit
		old, new string
	}{
		{"E2 compute buffer, -fa off, bytes per token per n_embd", &r.Compute, fmt.Sprint(r.Old.ComputePerHidden), fmt.Sprint(r.New.ComputePerHidden)},
		{"E2 compute buffer, -fa off, bytes per token", nil, fmt.Sprint(r.Old.ComputePerToken), fmt.Sprint(r.New.ComputePerToken)},
		{"E3 CUDA pool, -fa on", &r.PoolFA, r.Old.PoolFA.String(), r.New.PoolFA.String()},
		{"E3 CUDA pool, -fa off, over -fa on and the f16 copies", &r.PoolNoFA, r.Old.PoolNoFA.String(), r.New.PoolNoFA.String()},
		{"E3 CUDA pool, a MoE's extra with -fa on", &r.PoolMoE, r.Old.PoolMoE.String(), r.New.PoolMoE.String()},
	} {
		mark := ""
		if c.old != c.new {
			mark = "  changed"
		}
		name := c.name
		if f := c.fit; f != nil {
			name += fmt.Sprintf(" (%d runs, %d rejected)", f.Used, len(f.Rejected))
			if f.Kept && f.Used > 0 {
				mark += "  kept: " + f.Why
			}
		}
		fmt.Fprintf(w, "  %-72s %10s %10s%s\n", name, c.old, c.new, mark)
	}
	if n := r.Rejected(); n > 0 {
		fmt.Fprintf(w, "\n%d observations rejected as implausible or outliers (robust fit; their rows say why)\n", n)
	}
	fmt.Fprintf(w, "\nresiduals, plan with the code's constants − measured (MiB):\n")
	fmt.Fprintf(w, "  %-34s %-10s %10s %10s %10s %10s  %s\n", "observation", "engine", "weights", "kv", "compute", "device", "used by")
	for _, row := range r.Rows {
		if row.Skipped != "" {
			fmt.Fprintf(w, "  %-34s %-10s skipped: %s\n", row.Name, row.Engine, row.Skipped)
			continue
		}
		cells := map[string]string{}
		for _, x := range row.Residuals {
			cells[x.Key] = fmt.Sprintf("%+.2f", float64(x.Plan-x.Measured)/float64(planner.MiB))
		}
		fmt.Fprintf(w, "  %-34s %-10s %10s %10s %10s %10s  %s\n", row.Name, row.Engine, dash(cells["weights"]), dash(cells["kv"]),
			dash(cells["compute_buffer"]), dash(cells["device_used"]), strings.Join(row.Used, " "))
		for _, why := range row.Rejected {
			fmt.Fprintf(w, "  %-34s rejected by %s\n", "", why)
		}
	}
	fmt.Fprintf(w, "\nvLLM and SGLang observations are planned and listed, not fitted (E4).\n")
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
