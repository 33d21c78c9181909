package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community/upload"
	"github.com/vramplan/vramplan/planner"
)

// stdin is where upload reads its confirmation; tests replace it.
var stdin io.Reader = os.Stdin

// cmdCalibrationList is `vramplan calibrations [list] [--json]`: the
// embedded table.
func cmdCalibrationList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan calibrations list", stderr)
	asJSON := fs.Bool("json", false, "print the calibrations as a JSON array, each as its table file holds it")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: vramplan calibrations [list] [--json]\n\nLists the embedded GPU calibrations.\n\n")
		fs.PrintDefaults()
	}
	if code, done := parseOnly(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vramplan calibrations list: unexpected argument %q\n", fs.Arg(0))
		return exitBadInput
	}
	all, err := calibrations.All()
	if err != nil {
		fmt.Fprintf(stderr, "vramplan calibrations: %v\n", err)
		return exitBadInput
	}
	if *asJSON {
		return writeJSON(stdout, all)
	}
	fmt.Fprintf(stdout, "%-28s %-28s %-8s %-9s %10s %10s %10s\n", "id", "gpu", "platform", "source", "total", "context", "library")
	for _, c := range all {
		fmt.Fprintf(stdout, "%-28s %-28s %-8s %-9s %10s %10s %10s\n", c.ID, c.GPU, c.Platform, c.Kind(),
			c.DeviceTotal, c.Context, c.LibraryReserve)
	}
	return exitFits
}

// cmdUpload is `vramplan calibrations upload FILE --to URL [--yes]`.
func cmdUpload(args []string, stdout, stderr io.Writer) int {
	const name = "vramplan calibrations upload"
	data, to, yes, code := uploadArgs(name, args, stderr)
	if data == nil {
		return code
	}
	return send(data, to, yes, stdout, stderr, name)
}

// uploadArgs parses an upload command's FILE --to URL [--yes] and reads
// FILE. On bad input it returns no data and the exit code.
func uploadArgs(name string, args []string, stderr io.Writer) ([]byte, string, bool, int) {
	fs := newFlagSet(name, stderr)
	to := fs.String("to", "", "the vramplan server's `URL` (http://127.0.0.1:8080)")
	yes := fs.Bool("yes", false, "send without asking (what is sent is still printed)")
	file, rest := splitFile(args)
	if err := fs.Parse(rest); err != nil {
		return nil, "", false, flagExit(err)
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	if file == "" || *to == "" {
		fmt.Fprintf(stderr, "usage: %s FILE --to URL [--yes]\n", name)
		return nil, "", false, exitBadInput
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, "", false, exitBadInput
	}
	return data, *to, *yes, exitFits
}

// send prepares, shows, confirms and sends one calibration.
func send(data []byte, to string, yes bool, stdout, stderr io.Writer, name string) int {
	body, _, err := upload.Prepare(data, upload.ThisMachine())
	if err != nil {
		fmt.Fprintf(stderr, "%s: the server would refuse it: %v\n", name, err)
		return exitBadInput
	}
	ok, err := upload.Confirm(stdout, stdin, strings.TrimSuffix(to, "/")+"/api/uploads", body, yes)
	if err != nil || !ok {
		fmt.Fprintf(stdout, "not sent\n")
		return exitNoFit
	}
	a, err := upload.Send(context.Background(), to, body)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitNoFit
	}
	a.Report(stdout, to)
	if !a.OK() {
		return exitNoFit
	}
	return exitFits
}

// splitFile takes a leading FILE argument off, so flags may follow it.
func splitFile(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitFits
	}
	return exitBadInput
}

// cmdExport is `vramplan calibrations export --group KEY [--from URL] [-o FILE]`:
// a community aggregate as a table entry.
func cmdExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan calibrations export", stderr)
	group := fs.String("group", "", "the upload group's `key` (see GET /api/community)")
	from := fs.String("from", "http://127.0.0.1:8080", "the vramplan server's `URL`")
	out := fs.String("o", "", "write to `FILE` (calibrations/<id>.json) instead of standard output")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if *group == "" {
		fmt.Fprintln(stderr, "vramplan calibrations export: --group is required")
		return exitBadInput
	}
	c, pending, err := fetchGroup(*from, *group)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan calibrations export: %v\n", err)
		return exitBadInput
	}
	if pending != "" {
		fmt.Fprintf(stderr, "vramplan calibrations export: %s is pending, not yet planned on by the server: %s\n", *group, pending)
	}
	data := calibrations.Format(&c)
	if *out == "" {
		stdout.Write(data)
		return exitFits
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "vramplan calibrations export: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stderr, "vramplan: wrote %s (%s, median of %d uploads)\n", *out, c.ID, c.Provenance.Runs)
	return exitFits
}

// fetchGroup reads a group's community calibration from a server, and
// why the server does not plan on it yet ("" when it does).
func fetchGroup(base, group string) (c planner.Calibration, pending string, err error) {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(strings.TrimSuffix(base, "/") + "/api/community?group=" + url.QueryEscape(group))
	if err != nil {
		return c, "", err
	}
	defer resp.Body.Close()
	var gs []struct {
		Group   string `json:"group"`
		Status  string `json:"status"`
		Summary struct {
			Pending string `json:"pending"`
		} `json:"summary"`
		Calibration *planner.Calibration `json:"calibration"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&gs); err != nil {
		return c, "", fmt.Errorf("%s/api/community: %w", base, err)
	}
	for _, g := range gs {
		if g.Group == group && g.Calibration != nil {
			c := *g.Calibration
			return c, g.Summary.Pending, calibrations.Validate(&c)
		}
	}
	return c, "", fmt.Errorf("%s has no group %q with accepted uploads (GET /api/community?status=all lists them)", base, group)
}
