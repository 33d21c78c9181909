package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/soak"
)

// cmdSoak drives a running agent with many clients, then checks it
// drained; with --latency-batch it times batched decode steps instead.
func cmdSoak(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gpuagent soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg soak.Config
	fs.StringVar(&cfg.Addr, "listen", "", "the agent's unix:`PATH` or HOST:PORT (required)")
	fs.IntVar(&cfg.Clients, "clients", 32, "concurrent clients")
	fs.IntVar(&cfg.Ops, "ops", 100_000, "operations in all")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	batch := fs.Int("latency-batch", 0, "time decode steps of this many sequences instead of soaking")
	steps := fs.Int("latency-steps", 20_000, "decode steps to time")
	form := fs.String("latency-form", "binary", "how timed steps travel: `binary` (wire.CallDecode), json (a wire.Step) or both")
	mapWith := fs.String("map", "", "every lease maps the KV pool: `vmm` (the GPU, device --device) or fake (memory files); default none")
	device := fs.Int("device", 0, "CUDA device `ordinal` for --map vmm")
	tokenFile := fs.String("token-file", "", "`file` holding the agent's bearer token (for a TCP --listen)")
	var gc gcFlag
	gc.register(fs)
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if err := gc.apply(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "gpuagent soak: --gc-heap: %v\n", err)
		return exitUsage
	}
	if cfg.Addr == "" {
		fmt.Fprintln(stderr, "gpuagent soak: --listen is required")
		return exitUsage
	}
	if *tokenFile != "" {
		tok, err := server.ReadTokenFile(*tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "gpuagent soak: %v\n", err)
			return exitUsage
		}
		cfg.Token = string(tok)
	}
	var ok bool
	if cfg.Map, ok = importers(*mapWith, *device); !ok {
		fmt.Fprintf(stderr, "gpuagent soak: --map %q: want vmm or fake\n", *mapWith)
		return exitUsage
	}
	ctx := context.Background()
	if *batch > 0 {
		return measure(ctx, cfg, *form, *batch, *steps, stdout, stderr)
	}
	res, err := soak.Run(ctx, cfg)
	if err == nil {
		err = res.Check()
	}
	if res != nil {
		fmt.Fprintln(stdout, res)
		if m := res.Mapping(); m != "" {
			fmt.Fprintln(stdout, m)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent soak: FAIL: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, "gpuagent soak: PASS: drained to the baseline, 0 steady-state acquisitions, KV base unmoved")
	return exitOK
}

// measure times decode steps in the forms named and prints a line each.
func measure(ctx context.Context, cfg soak.Config, form string, batch, steps int, stdout, stderr io.Writer) int {
	forms := map[string][]soak.Form{"binary": {soak.Binary}, "json": {soak.JSON}, "both": {soak.JSON, soak.Binary}}[form]
	if forms == nil {
		fmt.Fprintf(stderr, "gpuagent soak: --latency-form %q: want binary, json or both\n", form)
		return exitUsage
	}
	for _, f := range forms {
		l, err := soak.MeasureStep(ctx, cfg, f, batch, steps)
		if err != nil {
			fmt.Fprintf(stderr, "gpuagent soak: %v\n", err)
			return exitFail
		}
		fmt.Fprintln(stdout, l)
	}
	return exitOK
}
