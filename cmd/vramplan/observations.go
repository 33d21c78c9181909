package main

// This file is the engine observation side of the CLI: `vramplan check
// --log FILE --observation OUT` writes the observation of the log it read
// (calibrations/observation), and `vramplan observations upload|list`
// sends one to a server and lists a server's.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/vramplan/vramplan/calibrations/community/upload"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// observeFlags are check's flags for writing an observation.
type observeFlags struct {
	path, version, day, deviceUsed string
}

func (o *observeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.path, "observation", "", "also write the log's engine observation to `FILE` ('-' for standard output), for 'vramplan observations upload'")
	fs.StringVar(&o.version, engineVersionFlag, "", "the engine's `release` (b12072, 0.11.0): the plan follows that release's rules, and an observation records it when the log does not state it")
	fs.StringVar(&o.day, "day", "", "the run's UTC `date` YYYY-MM-DD (default today)")
	fs.StringVar(&o.deviceUsed, "device-used", "", "the device's memory in use after the first decode, as nvidia-smi's memory.used shows it (`SIZE`: 9,421 MiB, 9.2GiB)")
}

// write builds, checks and writes the observation of log l, read from
// data, for model m on calibration cal.
func (o *observeFlags) write(data []byte, l *enginelog.Log, m planner.Model, cal planner.Calibration, stderr io.Writer) *flagError {
	version := o.version
	if version == "" {
		if version = observation.Version(l.Engine, data); version == "" {
			return &flagError{"engine-version", fmt.Sprintf("the log does not state %s's release; give it", l.Engine)}
		}
	}
	day := o.day
	if day == "" {
		day = time.Now().UTC().Format(time.DateOnly)
	}
	ob := observation.FromLog(l, m, observation.GPU{Name: cal.GPU, TotalMiB: int64(cal.DeviceTotal / planner.MiB)}, version, day, catalogID(&m))
	if o.deviceUsed != "" {
		b, err := planner.ParseBytes(o.deviceUsed)
		if err != nil {
			return &flagError{"device-used", err.Error()}
		}
		ob.Figures = append(ob.Figures, observation.Figure{Key: observation.DeviceUsed, Bytes: int64(b), Resolution: int64(planner.MiB / 2)})
	}
	ch, err := observation.Check(observation.Format(&ob))
	if err != nil {
		return &flagError{"observation", err.Error()}
	}
	if o.path == "-" {
		os.Stdout.Write(ch.Document)
		return nil
	}
	if err := os.WriteFile(o.path, ch.Document, 0o644); err != nil {
		return &flagError{"observation", err.Error()}
	}
	fmt.Fprintf(stderr, "vramplan: wrote the observation %s to %s; send it with: vramplan observations upload %s --to URL\n", ch.ID, o.path, o.path)
	if held := observation.Held(&ch.Observation); len(held) > 0 {
		fmt.Fprintf(stderr, "vramplan: a server will hold it out of the refit: %s\n", strings.Join(held, "; "))
	}
	return nil
}

// catalogID returns m's catalog id when m is the catalog's model of that
// id, "" for a model read from a file.
func catalogID(m *planner.Model) string {
	c, err := catalog.Lookup(m.ID)
	if err != nil || c.ID != m.ID || c.Weights.Bytes != m.Weights.Bytes || c.Source != m.Source {
		return ""
	}
	return m.ID
}

// cmdObservationUpload is `vramplan observations upload FILE --to URL [--yes]`.
func cmdObservationUpload(args []string, stdout, stderr io.Writer) int {
	const name = "vramplan observations upload"
	data, to, yes, code := uploadArgs(name, args, stderr)
	if data == nil {
		return code
	}
	ch, err := observation.Check(data)
	if err != nil {
		fmt.Fprintf(stderr, "%s: the server would refuse it: %v\n", name, err)
		return exitBadInput
	}
	ok, err := upload.Confirm(stdout, stdin, strings.TrimSuffix(to, "/")+"/api/observations", ch.Document, yes)
	if err != nil || !ok {
		fmt.Fprintf(stdout, "not sent\n")
		return exitNoFit
	}
	a, err := upload.SendTo(context.Background(), to, "/api/observations", ch.Document)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitNoFit
	}
	reportObservation(stdout, &a, to)
	if !a.OK() {
		return exitNoFit
	}
	return exitFits
}

// reportObservation writes what the server's answer means.
func reportObservation(w io.Writer, a *upload.Answer, base string) {
	switch {
	case a.Code == http.StatusCreated:
		fmt.Fprintf(w, "%s: observation %s\n", shown(a.Status), shown(a.ID))
		for _, r := range a.Reasons {
			fmt.Fprintf(w, "  held out of the refit: %s\n", shown(r.Reason))
		}
		fmt.Fprintf(w, "deletion token (shown once; keep it to withdraw the observation):\n  %s\n", shown(a.Token))
		fmt.Fprintf(w, "withdraw: curl -X DELETE -H 'Authorization: Bearer %s' %s%s\n", shown(a.Token), strings.TrimSuffix(base, "/"), shown(a.URL))
	case a.Duplicate:
		fmt.Fprintf(w, "already uploaded: observation %s (%s)\n", shown(a.ID), shown(a.Status))
	default:
		fmt.Fprintf(w, "refused (%d): %s\n", a.Code, shown(a.Error))
		for _, r := range a.Reasons {
			fmt.Fprintf(w, "  %s: %s\n", shown(r.Field), shown(r.Reason))
		}
	}
}

// cmdObservationList is `vramplan observations list --from URL [--engine E]`.
func cmdObservationList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan observations list", stderr)
	from := fs.String("from", "http://127.0.0.1:8080", "the vramplan server's `URL`")
	engine := fs.String("engine", "", "only this `engine`'s observations (llama.cpp, vllm, sglang)")
	asJSON := fs.Bool("json", false, "print the list as the server sends it: a JSON array of id, status, reasons and observation")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	all, err := fetchObservations(*from, *engine)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan observations list: %v\n", err)
		return exitBadInput
	}
	if *asJSON {
		return writeJSON(stdout, append([]listedObservation{}, all...)) // [] for none, not null
	}
	fmt.Fprintf(stdout, "%-20s %-9s %-10s %-9s %-14s %-18s %s\n", "id", "engine", "version", "status", "gpu", "model", "settings")
	for _, l := range all {
		ch, err := observation.Check(l.Observation)
		if err != nil {
			fmt.Fprintf(stdout, "%-20s unreadable: %s\n", shown(l.ID), shown(err.Error()))
			continue
		}
		o := &ch.Observation
		model := o.Model.Catalog
		if model == "" {
			model = "shape " + ch.ModelDigest[:12]
		}
		fmt.Fprintf(stdout, "%-20s %-9s %-10s %-9s %-14s %-18s %s\n", shown(l.ID), o.Engine, o.EngineVersion, shown(l.Status), o.GPU.Name, model, settingsOf(o))
	}
	return exitFits
}

func settingsOf(o *observation.Observation) string {
	if s := o.LlamaCpp; s != nil {
		return fmt.Sprintf("-c %d -np %d -ub %d -ctk %s -ctv %s -fa %s", s.NCtx, s.NSeqMax, s.NUbatch, s.TypeK, s.TypeV, onOff(s.FlashAttn))
	}
	var parts []string
	if p := o.Pool; p != nil {
		parts = append(parts, fmt.Sprintf("%d KV tokens", p.Tokens))
	}
	if s := o.Settings; s != nil && max(s.TensorParallel, 1)*max(s.PipelineParallel, 1) > 1 {
		parts = append(parts, fmt.Sprintf("TP %d x PP %d", max(s.TensorParallel, 1), max(s.PipelineParallel, 1)))
	}
	if s := o.Settings; s != nil && s.MaxLen > 0 {
		parts = append(parts, fmt.Sprintf("max length %d", s.MaxLen))
	}
	return strings.Join(parts, ", ")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
