package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"

	"github.com/vramplan/vramplan/internal/osfile"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc/logcheck"
)

// cmdCheck reads an engine's start-up log, plans the configuration it
// states and prints plan against log, charge by charge.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan check", stderr)
	logPath := fs.String("log", "", "the engine's start-up log `file` (llama.cpp; vLLM and SGLang lines as their source prints them)")
	model := fs.String("model", "", "the model the log loaded: a catalog `name`, a .gguf file, a config.json or a model directory")
	gpu := fs.String("gpu", "", "GPU: the card as people name it, a calibration `id` or a calibration file, as plan takes it")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	var obs observeFlags
	obs.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	fail := func(flag string, err error) int {
		fmt.Fprintf(stderr, "vramplan check: --%s: %v\n", flag, err)
		return exitBadInput
	}
	l, data, missing := readCheckFlags(*logPath, model, *gpu)
	if len(missing) > 0 {
		for _, m := range missing {
			fmt.Fprintf(stderr, "vramplan check: %s\n", m)
		}
		return exitBadInput
	}
	m, err := loadModel(*model, "", "")
	if c, ok := catalogGGUF(*model, ""); errors.Is(err, iofs.ErrNotExist) && ok {
		// A log of llama-server -hf names the file in its download cache.
		m, err = c, nil
		fmt.Fprintf(stderr, "vramplan check: --model: %s is not here: planned as the catalog's %s, whose GGUF file has that name\n", *model, c.ID)
	}
	if err != nil {
		return fail("model", err)
	}
	cal, note, err := lookupGPU(*gpu)
	if err != nil {
		return fail("gpu", err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "vramplan check: --gpu: %s\n", note)
	}
	input, err := l.Input(m, cal)
	if err != nil {
		return fail("log", err)
	}
	input.Serving.Version = obs.version // the plan follows the release given, the profile's newest without one
	p, err := planner.Report(input)
	if ie, bad := err.(*planner.InputError); bad && ie.Field == "serving.version" {
		return fail(engineVersionFlag, errors.New(ie.Msg))
	}
	if _, bad := err.(*planner.InputError); bad {
		return fail("log", err)
	}
	rows := enginelog.Compare(&l, &p)
	conflicts := logcheck.Conflicts(&l, rows, &m, &cal, "")
	if obs.path != "" && len(conflicts) > 0 {
		for _, c := range conflicts {
			fmt.Fprintf(stderr, "vramplan check: --observation: %s\n", c)
		}
		return exitBadInput
	}
	if obs.path != "" {
		if err := obs.write(data, &l, m, cal, stderr); err != nil {
			return fail(err.flag, errors.New(err.msg))
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(struct {
			Log  enginelog.Log   `json:"log"`
			Rows []enginelog.Row `json:"rows"`
			Plan *planner.Plan   `json:"plan"`
		}{l, rows, &p}, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return exitFits
	}
	for _, c := range conflicts {
		fmt.Fprintf(stdout, "contradiction: %s\n", c)
	}
	fmt.Fprintf(stdout, "%s log, planned as %s for %s on %s\n\n", l.Engine, engineVersion(&p), m.ID, cal.ID)
	fmt.Fprintf(stdout, "  %-28s %12s %12s %12s\n", "charge", "plan MiB", "log MiB", "residual")
	for _, r := range rows {
		note := ""
		if r.Within {
			note = "  (within the log's rounding)"
		}
		fmt.Fprintf(stdout, "  %-28s %12.2f %12.2f %+12.2f%s\n", r.Name, mib(r.Plan), mib(r.Log), mib(r.Residual), note)
	}
	if e := p.Engine; e != nil {
		fmt.Fprintf(stdout, "\n  launch: %s\n", e.Launch)
	}
	return exitFits
}

// readCheckFlags reads the log and says every flag that is missing or
// cannot be read at once: the log, the model (which a llama.cpp log names
// itself) and the GPU.
func readCheckFlags(logPath string, model *string, gpu string) (enginelog.Log, []byte, []string) {
	var l enginelog.Log
	var missing []string
	data, err := readLog(logPath)
	if err == nil {
		l, err = enginelog.Parse(data)
	}
	if err != nil {
		missing = append(missing, "--log: "+err.Error())
	}
	if *model == "" && l.LlamaCpp != nil {
		*model = l.LlamaCpp.Model
	}
	if *model == "" {
		missing = append(missing, "--model: required: the model the log loaded (a catalog name, a .gguf, a config.json or a model directory)")
	}
	if gpu == "" {
		missing = append(missing, "--gpu: required: the GPU the log ran on (the card as people name it, a calibration id or a calibration file, as plan takes it)")
	}
	return l, data, missing
}

func mib(b planner.Bytes) float64 { return float64(b) / float64(planner.MiB) }

func engineVersion(p *planner.Plan) string {
	if p.Engine != nil {
		return p.Engine.Version
	}
	return "vramplan"
}

func readLog(path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("required")
	}
	fh, _, err := osfile.Open(path) // a FIFO or a device is refused unopened: opening a FIFO waits for a writer
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, enginelog.MaxLog+1))
}
