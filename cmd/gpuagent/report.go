package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/planner"
)

// cmdReport prints a running agent's memory report (the seed's
// --mem-report), or with --plan only the planned side.
func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gpuagent report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "the agent's unix:`PATH` or HOST:PORT")
	plan := fs.String("plan", "", "without --listen: print the planned side of this plan `file`")
	asJSON := fs.Bool("json", false, "print the report document")
	tokenFile := fs.String("token-file", "", "`file` holding the agent's bearer token (for a TCP --listen)")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	switch {
	case *listen != "":
		return liveReport(*listen, *tokenFile, *asJSON, stdout, stderr)
	case *plan != "":
		return planReport(*plan, *asJSON, stdout, stderr)
	}
	fmt.Fprintln(stderr, "gpuagent report: give --listen (a running agent) or --plan (the planned side)")
	return exitUsage
}

func liveReport(listen, tokenFile string, asJSON bool, stdout, stderr io.Writer) int {
	var o client.Options
	if tokenFile != "" {
		tok, err := server.ReadTokenFile(tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "gpuagent report: %v\n", err)
			return exitUsage
		}
		o.Token = string(tok)
	}
	c, err := client.DialWith(context.Background(), listen, o)
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent report: %v\n", err)
		return exitFail
	}
	defer c.Close()
	var r agent.Report
	if err := c.Report(&r); err != nil {
		fmt.Fprintf(stderr, "gpuagent report: %v\n", err)
		return exitFail
	}
	if asJSON {
		return printJSON(stdout, r)
	}
	fmt.Fprint(stdout, r.Text())
	return exitOK
}

func planReport(path string, asJSON bool, stdout, stderr io.Writer) int {
	data, err := readPlanFile(path)
	if err == nil {
		var p planner.Plan
		if p, err = planner.ParsePlan(data); err == nil {
			if asJSON {
				stdout.Write(p.JSON())
			} else {
				fmt.Fprintf(stdout, "planned side only (no agent asked):\n\n%s", p.Text())
			}
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "gpuagent report: %v\n", err)
	return exitUsage
}

func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return exitOK
}
