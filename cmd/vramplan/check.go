package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"slices"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/internal/osfile"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc/logcheck"
)

// cmdCheck reads an engine's start-up log, plans the configuration it
// states and prints plan against log, charge by charge.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan check", stderr)
	logPath := fs.String("log", "", "the engine's start-up log `file` (llama-server; vLLM, V0 or V1; SGLang)")
	model := fs.String(logcheck.FlagModel, "", "the model the log loaded: a catalog `name`, a .gguf file, a config.json or a model directory")
	gpu := fs.String(logcheck.FlagGPU, "", "GPU: the card as people name it, a calibration `id` or a calibration file, as plan takes it")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	var given givenFlags
	given.register(fs)
	var obs observeFlags
	obs.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	fail := func(flag string, err error) int {
		fmt.Fprintf(stderr, "vramplan check: --%s: %v\n", flag, err)
		return exitBadInput
	}
	fromLog, gpuFromLog := *model == "", *gpu == ""
	l, data, missing := readCheckFlags(*logPath, model, gpu)
	if g, err := given.read(); err != nil {
		missing = append(missing, err.Error())
	} else {
		l.Give(g)
	}
	if len(missing) > 0 {
		for _, m := range missing {
			fmt.Fprintf(stderr, "vramplan check: %s\n", m)
		}
		return exitBadInput
	}
	m, err := checkModel(*model, fromLog, stderr)
	if err != nil {
		return fail("model", err)
	}
	cal, err := checkGPU(*gpu, gpuFromLog, stderr)
	if err != nil {
		return fail("gpu", err)
	}
	input, err := l.Input(m, cal)
	if err != nil {
		return fail("log", err)
	}
	if obs.version != "" {
		input.Serving.Version = obs.version // the release given stands for the log's
	}
	p, err := planner.Report(input)
	if ie, bad := err.(*planner.InputError); bad && ie.Field == "serving.version" {
		return fail(engineVersionFlag, errors.New(ie.Msg))
	}
	if _, bad := err.(*planner.InputError); bad {
		return fail("log", err)
	}
	rows, ranks := enginelog.Compare(&l, &p), enginelog.CompareRanks(&l, &p)
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
	e := enginelog.RankZero(&p).Engine // a layout's engine report is its ranks'
	pl := logcheck.PlannedOf(e, rows)
	if obs.version == "" {
		pl.KVByRelease = enginelog.ReleaseKV(&l, input)
	}
	assumed := logcheck.Assumptions(&l, &pl, &m, &cal)
	if obs.version != "" {
		assumed = slices.DeleteFunc(assumed, func(a logcheck.Assumption) bool { return a.Flag == engineVersionFlag })
	}
	if *asJSON {
		b, _ := json.MarshalIndent(struct {
			Assumptions []logcheck.Assumption `json:"assumptions"`
			Log         enginelog.Log         `json:"log"`
			Rows        []enginelog.Row       `json:"rows"`
			RankRows    []enginelog.RankRows  `json:"rank_rows,omitempty"`
			Pool        *enginelog.PoolRow    `json:"pool,omitempty"`
			Plan        *planner.Plan         `json:"plan"`
		}{append([]logcheck.Assumption{}, assumed...), l, rows, ranks, enginelog.ComparePool(&l, &p), &p}, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return exitFits
	}
	for _, a := range assumed {
		if a.Decides {
			fmt.Fprintf(stdout, "assumed, and it decides the comparison: %s\n", a.Text)
		}
	}
	for _, c := range conflicts {
		fmt.Fprintf(stdout, "contradiction: %s\n", c)
	}
	fmt.Fprintf(stdout, "%s log, planned as %s for %s on %s\n\n", l.Engine, pl.PlannedAs, m.ID, cal.ID)
	fmt.Fprintf(stdout, "  %-28s %12s %12s %12s\n", "charge", "plan MiB", "log MiB", "residual")
	pool := enginelog.ComparePool(&l, &p)
	stage := "" // a pipeline's rows name their stage
	if ranks != nil || pool != nil && pool.Stages != nil {
		stage = "stage 0: "
	}
	for _, r := range rows {
		printRow(stdout, stage+r.Name, r, "")
	}
	for _, rr := range ranks {
		for _, r := range rr.Rows {
			printRow(stdout, fmt.Sprintf("stage %d: %s", rr.Stage, r.Name), r, "printed by rank "+rr.Rank)
		}
	}
	if pr := pool; pr != nil {
		fmt.Fprintf(stdout, "  %-28s %12d %12d %+11.1f%%\n", "KV pool ("+pr.Unit+")", pr.Plan, pr.Log, 100*pr.Residual)
		if pr.Stages != nil {
			fmt.Fprintf(stdout, "  %s\n", logcheck.Binding(pr))
		}
	}
	for _, f := range l.Reported {
		fmt.Fprintf(stdout, "  %-28s %12s %12.2f   (read; no plan line%s)\n", f.Name, "", mib(f.Bytes), rankOf(f))
	}
	if e != nil {
		fmt.Fprintf(stdout, "\n  launch: %s\n", pl.Launch)
	}
	printUnsaid(stdout, &l, assumed)
	return exitFits
}

// printRow prints one charge's row, with a note in parentheses.
func printRow(w io.Writer, name string, r enginelog.Row, note string) {
	if r.Within {
		note = strings.TrimPrefix(note+"; within the log's rounding", "; ")
	}
	if note != "" {
		note = "  (" + note + ")"
	}
	fmt.Fprintf(w, "  %-28s %12.2f %12.2f %+12.2f%s\n", name, mib(r.Plan), mib(r.Log), mib(r.Residual), note)
}

// printUnsaid prints what the check assumed that does not decide the
// comparison, and the log's memory lines that were not read.
func printUnsaid(w io.Writer, l *enginelog.Log, assumed []logcheck.Assumption) {
	head := "\nassumed:\n"
	for _, a := range assumed {
		if !a.Decides {
			fmt.Fprintf(w, "%s  %s\n", head, a.Text)
			head = ""
		}
	}
	if n := len(l.Unread) + l.UnreadMore; n > 0 {
		fmt.Fprintf(w, "\nnot read: %d %s:\n", n, plural(n, "line that looks like a memory line", "lines that look like memory lines"))
		for _, s := range l.Unread {
			fmt.Fprintf(w, "  %s\n", s)
		}
		if l.UnreadMore > 0 {
			fmt.Fprintf(w, "  … and %d more\n", l.UnreadMore)
		}
	}
}

// rankOf says which rank printed f when that is not rank 0.
func rankOf(f enginelog.Figure) string {
	if f.Rank == "" {
		return ""
	}
	return "; printed by rank " + f.Rank
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// givenFlags are the settings a log may not state, given to the check.
type givenFlags struct {
	tp, pp, maxLen int
	util, memFrac  float64
}

func (g *givenFlags) register(fs *flag.FlagSet) {
	fs.Var(size(&g.tp), logcheck.FlagTensorParallel, "the tensor-parallel `size` the run used, when its log does not state it")
	fs.Var(size(&g.pp), logcheck.FlagPipelineParallel, "the pipeline-parallel `size` the run used, when its log does not state it")
	fs.Var(count(&g.maxLen), logcheck.FlagMaxSeqLen, "the request length in `tokens` (--max-model-len, --context-length; 32K is 32768), when the log does not state it")
	fs.Float64Var(&g.util, logcheck.FlagUtilization, 0, "vLLM's gpu_memory_utilization `fraction`, when the log does not state it")
	fs.Float64Var(&g.memFrac, logcheck.FlagMemFraction, 0, "SGLang's mem_fraction_static `fraction`, when the log does not state it")
}

// read returns the settings given, or an error naming the flag out of range.
func (g *givenFlags) read() (enginelog.Given, error) {
	for _, f := range []struct {
		name string
		v    float64
		max  float64
	}{{logcheck.FlagTensorParallel, float64(g.tp), planner.MaxParallel}, {logcheck.FlagPipelineParallel, float64(g.pp), planner.MaxParallel}, {logcheck.FlagMaxSeqLen, float64(g.maxLen), 1 << 30},
		{logcheck.FlagUtilization, g.util, 1}, {logcheck.FlagMemFraction, g.memFrac, 1}} {
		if !(f.v >= 0 && f.v <= f.max) {
			return enginelog.Given{}, fmt.Errorf("--%s: %v is out of range (0, %v]", f.name, f.v, f.max)
		}
	}
	return enginelog.Given{TensorParallel: g.tp, PipelineParallel: g.pp, MaxLen: g.maxLen, Utilization: g.util, MemFractionStatic: g.memFrac}, nil
}

// readCheckFlags reads the log and says every flag that is missing or
// cannot be read at once: the log, the model and the GPU, each of which,
// not given, is the one the log names (logModel; a llama.cpp log's device).
func readCheckFlags(logPath string, model, gpu *string) (enginelog.Log, []byte, []string) {
	var l enginelog.Log
	var missing []string
	data, err := readLog(logPath)
	if err == nil {
		l, err = enginelog.Parse(data)
	}
	if err != nil {
		missing = append(missing, "--log: "+err.Error())
	}
	if *model == "" {
		*model = logModel(&l)
	}
	if *model == "" {
		missing = append(missing, "--model: required: the model the log loaded (a catalog name, a .gguf, a config.json or a model directory)")
	}
	if *gpu == "" && l.LlamaCpp != nil {
		*gpu = l.LlamaCpp.GPU
	}
	if *gpu == "" {
		missing = append(missing, "--gpu: required: the GPU the log ran on (the card as people name it, a calibration id or a calibration file, as plan takes it)")
	}
	return l, data, missing
}

// logModel is the model a log names: llama.cpp's model file, vLLM's
// model='…' (its engine's config line) or SGLang's model_path='…'
// (server_args), or "".
func logModel(l *enginelog.Log) string {
	switch {
	case l.LlamaCpp != nil:
		return l.LlamaCpp.Model
	case l.Settings != nil:
		return l.Settings.Model
	}
	return ""
}

// checkModel loads the model a check plans, name as --model takes it, or
// when fromLog the one the log names, saying so on stderr. A GGUF file
// that is not here is the catalog model whose file has its name (a log of
// llama-server -hf names the file in its download cache).
func checkModel(name string, fromLog bool, stderr io.Writer) (planner.Model, error) {
	m, err := loadModel(name, "", "")
	if c, ok := catalogGGUF(name, ""); errors.Is(err, iofs.ErrNotExist) && ok {
		fmt.Fprintf(stderr, "vramplan check: --model: %s is not here: planned as the catalog's %s, whose GGUF file has that name\n", name, c.ID)
		return c, nil
	}
	switch {
	case err != nil && fromLog:
		return m, fmt.Errorf("the log's model %s cannot be read here (%w): give --model, a catalog name, a .gguf, a config.json or a model directory", name, err)
	case fromLog:
		fmt.Fprintf(stderr, "vramplan check: --model: taken from the log: %s, planned as %s\n", name, m.ID)
	}
	return m, err
}

// checkGPU looks up the GPU a check plans on, name as --gpu takes it, or
// when fromLog the device a llama.cpp log names (ggml_cuda_init's "Device
// 0: NVIDIA H200, …") resolved in the table, saying so on stderr; a card
// the table lacks is refused, naming the nearest, never planned on
// another's figures.
func checkGPU(name string, fromLog bool, stderr io.Writer) (planner.Calibration, error) {
	var cal planner.Calibration
	var note string
	var err error
	if fromLog { // a log's device name is a card's, never a file to read
		all, terr := calibrationTable()
		if terr != nil {
			return cal, terr
		}
		cal, note, err = calibrations.Resolve(name, all, nil)
	} else {
		cal, note, err = lookupGPU(name)
	}
	switch {
	case err != nil && fromLog:
		return cal, fmt.Errorf("the log's GPU: %w; give --gpu, the card as people name it, a calibration id or a calibration file", err)
	case err != nil:
		return cal, err
	case fromLog:
		fmt.Fprintf(stderr, "vramplan check: --gpu: taken from the log: %s, planned on %s\n", name, cal.ID)
	}
	if note != "" {
		fmt.Fprintf(stderr, "vramplan check: --gpu: %s\n", note)
	}
	return cal, nil
}

func mib(b planner.Bytes) float64 { return float64(b) / float64(planner.MiB) }

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
