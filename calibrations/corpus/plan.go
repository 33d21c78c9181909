package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/cmdline"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/planner/modelfile"
)

// How an entry becomes a planner input. The launch configuration is
// written back into the engine's own command line and read by
// planner/cmdline, the one reader of engine flags, so that the corpus
// plans a run exactly as `vramplan plan --from-flags` would. Four facts
// come from the entry instead: vLLM V1's top-k/top-p sampler (FlashInfer's
// when the entry's log says so as planner/enginelog reads it, the reader
// `vramplan check --log` uses), the model (its catalog id or config path),
// the GPU's total (gpu.total_gib as the log or thread gives it, or its
// card's, cards.go, for total_from "card"; on the calibration the card
// resolves to or, for a card with none, FallbackCalibration) and the
// vision tower (family "vision": the engines load a multimodal
// checkpoint's tower).
//
// --dtype is left out: it is the activations' type, and the weights' bytes
// come from the checkpoint. --quantization applies to a 16-bit checkpoint
// only (vLLM's online FP8 of a bf16 model); a quantized checkpoint keeps
// its own quantization_config.

// FallbackCalibration is the calibration whose overheads (CUDA context,
// library reserve, CUDA-graph bytes) stand in for a card the project has
// no calibration of; only the device total is the entry's own.
const FallbackCalibration = "h200-linux-cuda13.0"

// Input returns the planner input e's launch configuration states, its
// model opened from under root (the repository root), and the name of the
// calibration whose overheads it carries.
func Input(e *Entry, root string) (planner.Input, string, error) {
	var in planner.Input
	c, err := cmdline.Parse(commandLine(e))
	if err != nil {
		return in, "", err
	}
	if in.Model, err = openModel(e, root, c.WeightsDtype); err != nil {
		return in, "", err
	}
	if _, err := c.Apply(&in); err != nil {
		return in, "", err
	}
	in.Features.Vision = slices.Contains(strings.Split(e.Model.Family, "+"), "vision")
	if err := vllmLogFacts(e, &in); err != nil {
		return in, "", err
	}
	in.Serving.Version = Release(e)
	cal, err := calibrationOf(e)
	in.Calibration = cal
	return in, cal.ID, err
}

// vllmLogFacts sets in as e's log says vLLM V1 ran (enginelog.Log.SetRun,
// as `vramplan check --log` plans it), from a log that may report no memory
// figures.
func vllmLogFacts(e *Entry, in *planner.Input) error {
	if e.Engine != EngineVLLM {
		return nil
	}
	l, err := enginelog.Read([]byte(e.Log)) // a failed start reports no figures
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	l.SetRun(in)
	return nil
}

// Release returns the engine release e is planned under, as the planner
// reads serving.version: e's version, or the minor release of one known
// only to it ("unknown-0.4" is 0.4); "" (the profile's newest rules) for an
// era ("unknown-v0", "unknown-v1"), a source build ("main@…",
// "0.0.0.dev…") and anything else that names no release (readVersion,
// which BandOf reads too). A release outside every range of the profile
// is kept, and the plan refuses it.
func Release(e *Entry) string { return readVersion(e.Version).release }

// program is each engine's launch command.
var program = map[string]string{EngineVLLM: "vllm serve model", EngineSGLang: "python -m sglang.launch_server --model-path model"}

// commandLine writes e's configuration as its engine's command line, keys
// in order: true booleans as bare flags, false and null ones left out.
func commandLine(e *Entry) string {
	var b strings.Builder
	b.WriteString(program[e.Engine])
	keys := make([]string, 0, len(e.Config))
	for k := range e.Config {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := strings.TrimSpace(string(e.Config[k]))
		if k == "dtype" || v == "null" || v == "false" {
			continue
		}
		b.WriteString(" --" + strings.ReplaceAll(k, "_", "-"))
		switch {
		case v == "true":
		case strings.HasPrefix(v, `"`):
			var s string
			_ = json.Unmarshal([]byte(v), &s) // validate checked it is a string
			b.WriteString(" " + strconv.Quote(s))
		default:
			b.WriteString(" " + strconv.Quote(v))
		}
	}
	return b.String()
}

// openModel opens e's model, in the quantization the command asks when
// the checkpoint is a 16-bit one.
func openModel(e *Entry, root, quant string) (planner.Model, error) {
	if e.Model.Catalog != "" {
		return modelfile.Open(e.Model.Catalog, modelfile.Options{})
	}
	if e.Model.Config == "" {
		return planner.Model{}, errors.New(firstNote(e, Unplannable))
	}
	path := filepath.Join(root, filepath.FromSlash(e.Model.Config))
	m, err := modelfile.Open(path, modelfile.Options{})
	if err != nil || quant == "" || (m.Weights.Dtype != "bf16" && m.Weights.Dtype != "f16") {
		return m, err
	}
	return modelfile.Open(path, modelfile.Options{WeightsDtype: quant})
}

func firstNote(e *Entry, prefix string) string {
	for _, n := range e.Notes {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return prefix + "no model"
}

// calibrationOf is the calibration of e's card, with e's total: the one
// Resolve finds by the card's name, else the one cards.go names for it.
func calibrationOf(e *Entry) (planner.Calibration, error) {
	all, err := calibrations.All()
	if err != nil {
		return planner.Calibration{}, err
	}
	cal, _, err := calibrations.Resolve(e.GPU.Name, all, nil)
	if c, ok := cards[e.GPU.Name]; err != nil && ok && c.Calibration != "" {
		// The corpus's name for a card that Resolve does not know by it.
		cal, err = calibrations.Lookup(c.Calibration)
	}
	if e.GPU.Name == "" || err != nil {
		if cal, err = calibrations.Lookup(FallbackCalibration); err != nil {
			return cal, fmt.Errorf("calibration %s: %w", FallbackCalibration, err)
		}
	}
	cal.DeviceTotal = planner.Bytes(math.Round(e.GPU.TotalGiB * float64(planner.GiB)))
	if freeAtStart(e) {
		// The context and the communicators were allocated before the
		// figure was taken: charging them again would count them twice.
		cal.Context, cal.ContextEager = 0, 0
		cal.Comm = []planner.CommCost{{GroupRanks: 2}}
	}
	return cal, nil
}

// freeAtStart reports whether e's total is SGLang's free memory before
// loading (its "Load weight begin. avail mem"), the memory left after the
// CUDA context and the communicators, which mem_fraction_static applies
// to, rather than the device's total.
func freeAtStart(e *Entry) bool {
	v, ok := e.Values[FigureAvailBefore]
	return e.Engine == EngineSGLang && ok && math.Abs(v-e.GPU.TotalGiB) < 0.005
}
