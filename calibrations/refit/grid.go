package refit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// This file reads the llama.cpp validation grid as
// scripts/llamacpp/device-run.sh leaves it (planner/testdata/engines/
// llamacpp-h200): logs/<run>/load.log, the model's load; logs/<run>/
// <c>_<np>_<kvu>_<ctk>_<ctv>_<fa>_<ub>_<swafull>.log, one context each;
// models/<name>.json, the shapes; results.jsonl, the probe's exact buffer
// sizes and the device's memory after the first decode; machine.txt, the
// llama.cpp release. Each context becomes one observation, its figures
// the probe's exact bytes where results.jsonl has the run.

// Grid reads the grid in dir.
func Grid(dir string) ([]Source, error) {
	version, err := gridVersion(filepath.Join(dir, "machine.txt"))
	if err != nil {
		return nil, err
	}
	exact, err := readResults(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	logs, err := filepath.Glob(filepath.Join(dir, "logs", "*", "*_*.log"))
	if err != nil || len(logs) == 0 {
		return nil, fmt.Errorf("%s: no logs/<run>/<config>.log files", dir)
	}
	var out []Source
	for _, path := range logs {
		s, err := gridRun(dir, path, version, exact)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, s)
	}
	return out, nil
}

var releaseRE = regexp.MustCompile(`\((b\d+)\)`)

func gridVersion(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m := releaseRE.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no llama.cpp release (bNNNN)", path)
	}
	return string(m[1]), nil
}

// probe is one context of results.jsonl.
type probe struct {
	model, compute, kv int64
	used               int64
}

// readResults maps "model ngl config" to a context's exact figures.
func readResults(path string) (map[string]probe, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]probe{}
	var model string
	var ngl int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Model   string
			NGL     int
			Config  string
			Buffers []struct {
				Buft                    string
				Model, Context, Compute int64
			}
			Used int64 `json:"used_after_decode"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if l.Config == "" {
			model, ngl = strings.TrimSuffix(filepath.Base(l.Model), ".gguf"), l.NGL
			continue
		}
		for _, b := range l.Buffers {
			if b.Buft == "CUDA0" {
				out[fmt.Sprint(model, " ", ngl, " ", l.Config)] = probe{b.Model, b.Compute, b.Context, l.Used}
			}
		}
	}
	return out, sc.Err()
}

var deviceRE = regexp.MustCompile(`Device 0: (.+?), compute capability.*VRAM: (\d+) MiB`)

// gridRun reads one context of the grid.
func gridRun(dir, path, version string, exact map[string]probe) (Source, error) {
	load, err := os.ReadFile(filepath.Join(filepath.Dir(path), "load.log"))
	if err != nil {
		return Source{}, err
	}
	ctx, err := os.ReadFile(path)
	if err != nil {
		return Source{}, err
	}
	l, err := enginelog.Parse(append(append(load, '\n'), ctx...))
	if err != nil {
		return Source{}, err
	}
	dev := deviceRE.FindSubmatch(load)
	if dev == nil || l.LlamaCpp == nil {
		return Source{}, fmt.Errorf("load.log names no CUDA device, or the log is not llama.cpp's")
	}
	total, _ := strconv.ParseInt(string(dev[2]), 10, 64)
	name := strings.TrimSuffix(filepath.Base(l.LlamaCpp.Model), ".gguf")
	data, err := os.ReadFile(filepath.Join(dir, "models", name+".json"))
	if err != nil {
		return Source{}, err
	}
	m, err := planner.ParseModel(data)
	if err != nil {
		return Source{}, err
	}
	o := observation.FromLog(&l, m, observation.GPU{Name: string(dev[1]), TotalMiB: total}, version, "2026-11-30", "")
	config := strings.TrimSuffix(filepath.Base(path), ".log")
	ngl := 999
	if l.LlamaCpp.GPULayers < l.LlamaCpp.Layers {
		ngl = l.LlamaCpp.GPULayers
	}
	s := l.LlamaCpp
	key := fmt.Sprintf("%s %d %d,%d,%d,%s,%s,%d,%d,%d", name, ngl, s.NCtx, s.NSeqMax, b2i(s.Unified), s.TypeK, s.TypeV,
		b2i(s.FlashAttn), s.NUbatch, b2i(s.SWAFull))
	if p, ok := exact[key]; ok {
		exactFigures(&o, p)
	}
	run := filepath.Base(filepath.Dir(path)) + "/" + config
	doc := observation.Format(&o)
	ch, err := observation.Check(doc)
	if err != nil {
		return Source{}, fmt.Errorf("%s: %w", bytes.TrimSpace(doc[:min(len(doc), 80)]), err)
	}
	return Source{Name: run, Observation: ch.Observation}, nil
}

// exactFigures replaces the log's rounded figures with the probe's bytes
// and adds the device's memory after the first decode.
func exactFigures(o *observation.Observation, p probe) {
	for i := range o.Figures {
		f := &o.Figures[i]
		switch f.Key {
		case "weights":
			f.Bytes, f.Resolution = p.model, 0
		case "kv":
			f.Bytes, f.Resolution = p.kv, 0
		case "compute_buffer":
			f.Bytes, f.Resolution = p.compute, 0
		}
	}
	o.Figures = append(o.Figures, observation.Figure{Key: observation.DeviceUsed, Bytes: p.used})
}

// settings is an observation's configuration, as an engine's flags.
func settings(o *observation.Observation) string {
	if s := o.LlamaCpp; s != nil {
		return fmt.Sprintf("-c %d -np %d%s -ctk %s -ctv %s -fa %s -ub %d", s.NCtx, s.NSeqMax, kvu(s.Unified), s.TypeK, s.TypeV, onOff(s.FlashAttn), s.NUbatch)
	}
	var args []string
	n := 0
	if p := o.Pool; p != nil {
		n = p.ConcurrencyLen
	}
	if st := o.Settings; st != nil && st.MaxLen > 0 {
		n = st.MaxLen // the length the plan reads first (enginelog's poolInput)
	}
	if n > 0 {
		args = append(args, fmt.Sprintf("--max-model-len %d", n))
	}
	if st := o.Settings; st != nil {
		for _, a := range []struct {
			flag string
			n    int
		}{{"--tensor-parallel-size", st.TensorParallel}, {"--pipeline-parallel-size", st.PipelineParallel}} {
			if a.n > 1 {
				args = append(args, fmt.Sprintf("%s %d", a.flag, a.n))
			}
		}
	}
	return strings.Join(args, " ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func kvu(b bool) string {
	if b {
		return " -kvu"
	}
	return ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
