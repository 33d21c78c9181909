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

// engineFlags choose the engine profile and its options: --engine,
// --from-flags, and each registered engine's options under the engine's
// own flag names (cmdline.Options).
type engineFlags struct {
	engine, fromFlags, version string
	options                    map[string]string // the engine options given, by name
	notes                      []string          // what --from-flags filled in or ignored, for stderr
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "", "plan under an engine's allocation rules: `name` "+strings.Join(engineNames(), ", ")+
		" (default: vramplan's own engine, as gpuagent serves it)")
	fs.StringVar(&f.version, engineVersionFlag, "", "plan under the rules of an engine `release` (0.6.3, 0.4.4, b12072); one outside the engine's ranges is refused, naming them (default: the newest)")
	fs.StringVar(&f.fromFlags, "from-flags", "", "read the engine, model and limits from an engine `command line` (llama-server, vllm serve, python -m sglang.launch_server)")
	f.options = map[string]string{}
	for _, o := range cmdline.Options() {
		fs.Var(&optionValue{f.options, o}, o.Name, o.Usage)
	}
}

// optionValue records an engine option's value for applyEngine.
type optionValue struct {
	set map[string]string
	o   cmdline.Option
}

func (v *optionValue) String() string   { return "" }
func (v *optionValue) IsBoolFlag() bool { return v.o.Bool }
func (v *optionValue) Set(s string) error {
	v.set[v.o.Name] = s
	return nil
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
// as published for an engine that loads checkpoints (or in the dtype the
// flags ask), Q8_0 for one that loads GGUF files.
func resolveModel(name, dtype, mmproj string, e planner.EngineName) (planner.Model, error) {
	if _, err := os.Stat(name); err != nil {
		if m, ok := catalogGGUF(name, mmproj); ok {
			return m, nil
		}
	}
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

// catalogGGUF resolves a GGUF file that is not here by its name, as the
// launch command of a catalog model names it (planner.GGUFFile), with the
// catalog's vision tower unless mmproj is a file here.
func catalogGGUF(name, mmproj string) (planner.Model, bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if !strings.HasSuffix(strings.ToLower(base), ".gguf") {
		return planner.Model{}, false
	}
	all, err := catalog.All()
	if err != nil {
		return planner.Model{}, false
	}
	for i := range all {
		if m := all[i]; strings.EqualFold(planner.GGUFFile(&m), base) {
			if _, err := os.Stat(mmproj); mmproj != "" && err == nil {
				if withTower, err := loadModel(m.ID, "", mmproj); err == nil {
					return withTower, true
				}
			}
			return m, true
		}
	}
	return planner.Model{}, false
}

func modelRank(m *planner.Model, dtype string, e planner.EngineName) int {
	d := strings.ToLower(m.Weights.Dtype)
	gguf := e.Profile() != nil && e.Profile().Loads == planner.ModelGGUF
	switch {
	case dtype != "" && strings.HasPrefix(d, strings.ToLower(dtype)):
		return 3
	case gguf && d == "q8_0":
		return 2
	case !gguf && strings.Contains(m.Source, "weights as published"):
		return 2
	}
	return 1
}

// applyEngine applies --engine and the engine options given.
func (f *engineFlags) applyEngine(in *planner.Input, set map[string]bool) error {
	if set["engine"] {
		e, err := planner.ParseEngine(f.engine)
		if err != nil {
			return &flagError{"engine", fmt.Sprintf("unknown engine %q (want one of %s)", f.engine, strings.Join(engineNames(), ", "))}
		}
		if e != in.Serving.Engine {
			in.Serving = planner.Serving{Engine: e}
		}
	}
	if set[engineVersionFlag] {
		in.Serving.Version = f.version
	}
	for _, o := range cmdline.Options() {
		if v, ok := f.options[o.Name]; ok {
			if err := cmdline.SetOption(in, o.Name, v); err != nil {
				return &flagError{o.Name, strings.TrimPrefix(err.Error(), "--"+o.Name+": ")}
			}
		}
	}
	return nil
}

// engineVersionFlag is the flag of the engine's release, the input's
// serving.version.
const engineVersionFlag = "engine-version"

// engineNames are the names --engine takes for the registered engines.
func engineNames() []string {
	var names []string
	for _, p := range planner.Profiles()[1:] {
		names = append(names, string(p.Name))
	}
	return names
}
