package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// cmdModels lists the catalog, or the models whose id, name or architecture
// holds every word of a search.
func cmdModels(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan models", stderr)
	asJSON := fs.Bool("json", false, "print the models as a JSON array, each as models/*.json holds it")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: vramplan models [--json] [WORD ...]\n\nLists the catalog's models, or those whose id, name or architecture holds every word.\n\n")
		fs.PrintDefaults()
	}
	if code, done := parseOnly(fs, args); done {
		return code
	}
	all, err := catalog.All()
	if err != nil {
		fmt.Fprintf(stderr, "vramplan models: %v\n", err)
		return exitBadInput
	}
	var shown []planner.Model
	for _, m := range all {
		if matches(&m, fs.Args()) {
			shown = append(shown, m)
		}
	}
	if len(shown) == 0 {
		fmt.Fprintf(stderr, "vramplan models: no model matches %q; 'vramplan models' lists all %d\n", strings.Join(fs.Args(), " "), len(all))
		return exitNoFit
	}
	if *asJSON {
		return writeJSON(stdout, shown)
	}
	fmt.Fprintf(stdout, "%-40s %-22s %10s %9s\n", "id", "arch", "weights", "context")
	for _, m := range shown {
		fmt.Fprintf(stdout, "%-40s %-22s %10s %9d\n", m.ID, m.Arch, m.Weights.Bytes, m.MaxContext)
	}
	return exitFits
}

// parseOnly parses fs and reports whether the command is done, with its
// exit code: -h asked for help, or a flag was bad.
func parseOnly(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitFits, true
		}
		return exitBadInput, true
	}
	return 0, false
}

func matches(m *planner.Model, words []string) bool {
	hay := strings.ToLower(m.ID + " " + m.Name + " " + m.Arch)
	for _, w := range words {
		if !strings.Contains(hay, strings.ToLower(w)) {
			return false
		}
	}
	return true
}
