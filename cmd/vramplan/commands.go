package main

// This file is the CLI's one table of commands. The dispatch, the usage
// text, "did you mean" and the shell completion scripts are all read from
// it, and each command's flags from the flag set the command itself makes
// (newFlagSet), so a command or flag added in one place is everywhere.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vramplan/vramplan/planner/names"
)

// command is one command or subcommand of the CLI.
type command struct {
	name string
	// help is what the usage says of it, one line or a few.
	help string
	// run runs it with the arguments after its name; nil for a command
	// that only groups subcommands.
	run  func(args []string, stdout, stderr io.Writer) int
	subs []command
}

// commands returns the CLI's commands, in the usage's order.
func commands() []command {
	return []command{
		{name: "plan", run: cmdPlan, help: "plan memory for a model, limits and GPU; exit 0 fits, 1 does not, 2 bad input\n" +
			"(--engine llama.cpp|vllm|sglang plans under that engine's rules and prints its\n" +
			"launch command; --from-flags \"llama-server …\" reads an engine command line)"},
		{name: "solve", run: cmdSolve, help: "the largest max-seq-len, the largest batch and the fit frontier"},
		{name: "gpus", run: cmdGPUs, help: "which GPUs of the calibration table serve the model at the limits: one each, or the\n" +
			"fewest and their layout, with headroom, KV tokens, concurrency and launch command"},
		{name: "check", run: cmdCheck, help: "read an engine's start-up log (--log), plan what it states, show plan against log;\n" +
			"--observation FILE writes the log's engine observation"},
		{name: "observations", help: "'upload FILE --to URL' sends an engine observation; 'list --from URL' lists a server's", subs: []command{
			{name: "upload", run: cmdObservationUpload, help: "send an engine observation to a server"},
			{name: "list", run: cmdObservationList, help: "list a server's engine observations"},
		}},
		{name: "engines", help: "'refit --logs DIR [--from URL]' refits the llama.cpp profile's estimated constants,\n" +
			"'refit --corpus ROOT' vLLM's from the corpus of real start-ups", subs: []command{
			{name: "refit", run: cmdRefit, help: "refit the llama.cpp profile's estimated constants from logs and uploads, or vLLM's from the corpus"},
		}},
		{name: "calibrations", run: cmdCalibrationList, help: "list the embedded GPU calibrations; 'upload FILE --to URL' sends one to a server,\n" +
			"'export --group KEY -o FILE' writes a community aggregate as a table entry", subs: []command{
			{name: "list", run: cmdCalibrationList, help: "list the embedded GPU calibrations (the default)"},
			{name: "upload", run: cmdUpload, help: "send a calibration to a server"},
			{name: "export", run: cmdExport, help: "write a community aggregate as a table entry"},
		}},
		{name: "models", run: cmdModels, help: "list the model catalog, or search it: vramplan models qwen3 q8"},
		{name: "serve", run: cmdServe, help: "serve the browser calculator (default 127.0.0.1:8080)"},
		{name: "version", run: cmdVersion, help: "the module version and VCS commit this binary was built from (also --version)"},
		{name: "completion", run: cmdCompletion, help: "a shell completion script: vramplan completion bash|zsh|fish"},
	}
}

// dispatch runs the command of cmds that args[0] names, under the command
// path above it ("vramplan", "vramplan calibrations"). A group's help
// (-h, --help, help) prints its usage and exits 0; no name, or a name that
// is no command, prints it to stderr and exits 2, with the command the
// name is a typo of.
func dispatch(path string, cmds []command, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if c := find(cmds, args[0]); c != nil {
			return c.exec(path+" "+c.name, args[1:], stdout, stderr)
		}
	}
	switch {
	case len(args) > 0 && isHelp(args[0]):
		usage(stdout, path, cmds)
		return exitFits
	case len(args) == 0:
		fmt.Fprintf(stderr, "%s: a command is required\n", path)
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q%s\n", path, args[0], didYouMean(args[0], cmds))
	}
	usage(stderr, path, cmds)
	return exitBadInput
}

// exec runs c: its subcommand when the first argument names one, else its
// own run (a group's own action, such as calibrations' list, takes its
// flags but no word that is not a subcommand).
func (c *command) exec(path string, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(c.subs) == 0:
		return c.run(args, stdout, stderr)
	case c.run == nil || len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		return dispatch(path, c.subs, args, stdout, stderr)
	}
	return c.run(args, stdout, stderr)
}

func find(cmds []command, name string) *command {
	for i := range cmds {
		if cmds[i].name == name {
			return &cmds[i]
		}
	}
	return nil
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// didYouMean is ` (did you mean "plan"?)` for a typo of a command's
// name, else "".
func didYouMean(typed string, cmds []command) string {
	all := make([]string, len(cmds))
	for i := range cmds {
		all[i] = cmds[i].name
	}
	if s := names.Suggest(typed, all); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// usage writes the commands of cmds under path, each with its help.
func usage(w io.Writer, path string, cmds []command) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", path)
	for _, c := range cmds {
		for i, line := range strings.Split(c.help, "\n") {
			name := ""
			if i == 0 {
				name = c.name
			}
			fmt.Fprintf(w, "  %-13s %s\n", name, line)
		}
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", path)
}

// newFlagSet returns the flag set of the command named name, writing its
// errors and help to stderr. Every command makes its flags here, so that
// completion can read them: when stderr is a *flagProbe, the set is also
// recorded in it.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if p, ok := stderr.(*flagProbe); ok {
		p.sets = append(p.sets, fs)
	}
	return fs
}

// flagProbe is the stderr of a command run with -h to read its flags: it
// discards what is written and keeps the flag sets the command makes.
type flagProbe struct{ sets []*flag.FlagSet }

func (p *flagProbe) Write(b []byte) (int, error) { return len(b), nil }

// flagsOf returns the flags of command c, as its flag set holds them: c
// is run with -h, which every command answers before it does any work.
func flagsOf(c *command) []*flag.Flag {
	if c.run == nil {
		return nil
	}
	p := &flagProbe{}
	c.run([]string{"-h"}, io.Discard, p)
	var out []*flag.Flag
	for _, fs := range p.sets {
		fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	}
	return out
}

// writeJSON writes v as indented JSON, the --json of a listing command.
func writeJSON(w io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(w, "%v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(w, "%s\n", b)
	return exitFits
}
