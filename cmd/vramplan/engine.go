package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/cmdline"
	"github.com/vramplan/vramplan/web/calc/logcheck"
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
	m, err := resolveModel(&c)
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
	if c.Hub && c.Mmproj == "" && !c.NoMmproj && m.Vision != nil {
		in.Features.Vision = true
		f.notes = append(f.notes, "-hf: llama-server also loads the repository's mmproj, charged as the vision tower (--no-mmproj leaves it out)")
	}
	f.notes = append(f.notes, notes...)
	if len(c.Ignored) > 0 {
		f.notes = append(f.notes, "ignored (no effect on memory planned): "+strings.Join(c.Ignored, ", "))
	}
	return nil
}

// resolveModel resolves an engine's model argument as --model does, or as
// a Hugging Face repository of a catalog model (catalog.LookupRepo): for
// llama-server's -hf and for an id that is no file here, the GGUF file
// type for an engine that loads GGUF files (Q4_K_M unless the tag or
// --hf-file says), the weights as published, or in the dtype the flags
// ask, for one that loads checkpoints.
func resolveModel(c *cmdline.Command) (planner.Model, error) {
	name := c.Model
	if !c.Hub {
		if _, err := os.Stat(name); err == nil || !catalog.IsRepo(name) {
			if m, ok := catalogGGUF(name, c.Mmproj); ok && err != nil {
				return m, nil
			}
			return loadModel(name, c.WeightsDtype, c.Mmproj)
		}
	}
	gguf := c.Engine.Profile() != nil && c.Engine.Profile().Loads == planner.ModelGGUF
	m, err := catalog.LookupRepo(catalog.Repo{Name: name, File: c.HubFile, GGUF: gguf, Dtype: c.WeightsDtype})
	if err != nil {
		return m, err
	}
	return withMmproj(m, c.Mmproj), nil
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
			return withMmproj(m, mmproj), true
		}
	}
	return planner.Model{}, false
}

// withMmproj returns catalog model m with the vision tower of mmproj when
// it is a file here, else with the catalog's.
func withMmproj(m planner.Model, mmproj string) planner.Model {
	if _, err := os.Stat(mmproj); mmproj != "" && err == nil {
		if withTower, err := loadModel(m.ID, "", mmproj); err == nil {
			return withTower
		}
	}
	return m
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
const engineVersionFlag = logcheck.FlagEngineVersion

// engineNames are the names --engine takes for the registered engines.
func engineNames() []string {
	var names []string
	for _, p := range planner.Profiles()[1:] {
		names = append(names, string(p.Name))
	}
	return names
}
