package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/cmdline"
)

// engineFlags choose the engine profile and its options.
type engineFlags struct {
	engine, fromFlags, flashAttn string
	gpuLayers                    int
	kvUnified                    bool
	gpuUtil, memFraction         float64
	notes                        []string // what --from-flags filled in or ignored, for stderr
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "", "plan under an engine's allocation rules: `name` llama.cpp, vllm or sglang (default: vramplan's own engine, as gpuagent serves it)")
	fs.StringVar(&f.fromFlags, "from-flags", "", "read the engine, model and limits from an engine `command line` (llama-server, vllm serve, python -m sglang.launch_server)")
	fs.StringVar(&f.flashAttn, "flash-attn", "", "llama.cpp -fa: on, off or auto (default auto, on for CUDA)")
	fs.IntVar(&f.gpuLayers, "gpu-layers", 0, "llama.cpp -ngl: layers on the GPU, the output layer first (default all)")
	fs.BoolVar(&f.kvUnified, "kv-unified", false, "llama.cpp -kvu: one KV stream shared by every sequence")
	fs.Float64Var(&f.gpuUtil, "gpu-memory-utilization", 0, "vLLM's share of the device's total memory (default 0.92)")
	fs.Float64Var(&f.memFraction, "mem-fraction-static", 0, "SGLang's static share of the device's memory (default: SGLang's formula)")
}

// applyCommand reads --from-flags into in: engine, model, limits, options.
func (f *engineFlags) applyCommand(in *planner.Input) error {
	c, err := cmdline.Parse(f.fromFlags)
	if err != nil {
		return &flagError{"from-flags", err.Error()}
	}
	m, err := resolveModel(c.Model, c.WeightsDtype, c.Mmproj, c.Engine)
	if err != nil {
		return &flagError{"from-flags", err.Error()}
	}
	in.Model = m
	if c.Mmproj != "" {
		in.Features.Vision = true
	}
	notes, err := c.Apply(in)
	if err != nil {
		return &flagError{"from-flags", err.Error()}
	}
	f.notes = append(f.notes, fmt.Sprintf("read a %s command line; model %s", c.Engine, m.ID))
	f.notes = append(f.notes, notes...)
	if len(c.Ignored) > 0 {
		f.notes = append(f.notes, "ignored (no effect on memory planned): "+strings.Join(c.Ignored, ", "))
	}
	return nil
}

// resolveModel resolves an engine's model argument as --model does, and
// also as the Hugging Face repository id of a catalog model: the weights
// as published for vLLM and SGLang (or in the dtype the flags ask), Q8_0
// for llama.cpp.
func resolveModel(name, dtype, mmproj string, e planner.EngineName) (planner.Model, error) {
	if _, err := os.Stat(name); err == nil || !strings.Contains(name, "/") {
		return loadModel(name, dtype, mmproj)
	}
	all, err := catalog.All()
	if err != nil {
		return planner.Model{}, err
	}
	var best *planner.Model
	for i := range all {
		m := &all[i]
		if !strings.Contains(strings.ToLower(m.Source), " "+strings.ToLower(name)+" config.json") {
			continue
		}
		if best == nil || modelRank(m, dtype, e) > modelRank(best, dtype, e) {
			best = m
		}
	}
	if best == nil {
		return loadModel(name, dtype, mmproj)
	}
	return *best, nil
}

func modelRank(m *planner.Model, dtype string, e planner.EngineName) int {
	d := strings.ToLower(m.Weights.Dtype)
	switch {
	case dtype != "" && strings.HasPrefix(d, strings.ToLower(dtype)):
		return 3
	case e == planner.EngineLlamaCpp && d == "q8_0":
		return 2
	case e != planner.EngineLlamaCpp && strings.Contains(m.Source, "weights as published"):
		return 2
	}
	return 1
}

// applyEngine applies --engine and the engine option flags set.
func (f *engineFlags) applyEngine(in *planner.Input, set map[string]bool) error {
	if set["engine"] {
		e := planner.EngineName(strings.ToLower(f.engine))
		if e == "llamacpp" || e == "llama-cpp" {
			e = planner.EngineLlamaCpp
		}
		if !e.Valid() {
			return &flagError{"engine", fmt.Sprintf("unknown engine %q (want llama.cpp, vllm or sglang)", f.engine)}
		}
		if e.Valid() && e != in.Serving.Engine {
			in.Serving = planner.Serving{Engine: e}
		}
	}
	o := &in.Serving
	if set["flash-attn"] {
		o.LlamaCpp.FlashAttn = planner.FlashAttn(strings.ToLower(f.flashAttn))
	}
	setInt(set, "gpu-layers", &o.LlamaCpp.GPULayers, f.gpuLayers)
	setBool(set, "kv-unified", &o.LlamaCpp.Unified, f.kvUnified)
	if set["gpu-memory-utilization"] {
		o.VLLM.GPUMemoryUtilization = f.gpuUtil
	}
	if set["mem-fraction-static"] {
		o.SGLang.MemFractionStatic = f.memFraction
	}
	return nil
}
