package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// parallelFlags are the flags that set the input's parallel layout.
type parallelFlags struct {
	tp, pp, ep, dp int
	ts             []float64
}

func (f *parallelFlags) register(fs *flag.FlagSet) {
	fs.Var(size(&f.tp), "tensor-parallel", "tensor-parallel `size` (vLLM --tensor-parallel-size, SGLang --tp)")
	fs.Var(size(&f.pp), "pipeline-parallel", "pipeline `stages` (vLLM --pipeline-parallel-size, SGLang --pp)")
	fs.Var(size(&f.ep), "expert-parallel", "expert-parallel `size`: divides --tensor-parallel (SGLang --ep-size) or is tp × dp (vLLM --enable-expert-parallel)")
	fs.Var(size(&f.dp), "data-parallel", "data-parallel `replicas`; the limits apply to each")
	fs.Func("tensor-split", "llama.cpp's -ts under --engine llama.cpp: one `share` per device, comma-separated (\"3,1\"); "+
		"sets --pipeline-parallel to the devices (-sm layer), or with --tensor-parallel above 1 the tensor-parallel devices' shares (-sm tensor)", func(v string) error {
		f.ts = f.ts[:0]
		for _, s := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", s)
			}
			f.ts = append(f.ts, x)
		}
		return nil
	})
}

// apply sets the layout fields whose flags were given.
func (f *parallelFlags) apply(in *planner.Input, set map[string]bool) {
	p := &in.Parallel
	setInt(set, "tensor-parallel", &p.Tensor, f.tp)
	setInt(set, "pipeline-parallel", &p.Pipeline, f.pp)
	setInt(set, "expert-parallel", &p.Expert, f.ep)
	setInt(set, "data-parallel", &p.Data, f.dp)
	if set["tensor-split"] {
		p.TensorSplit = f.ts
		if !set["pipeline-parallel"] && p.Tensor <= 1 { // with tensor parallelism they are -sm tensor's shares
			p.Pipeline = len(f.ts)
		}
	}
}

// lookupGPUs resolves --gpu: one calibration for every rank, or a comma
// list with one per rank, for mixed cards. It returns what the resolver
// said about the names (calibrations.Resolve), each once.
func lookupGPUs(in *planner.Input, list string) ([]string, error) {
	ids := strings.Split(list, ",")
	cs := make([]planner.Calibration, len(ids))
	var notes []string
	for i, id := range ids {
		c, note, err := lookupGPU(strings.TrimSpace(id))
		if err != nil {
			return nil, &flagError{"gpu", err.Error()}
		}
		if note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
		cs[i] = c
	}
	in.Calibration = cs[0]
	in.Parallel.Calibrations = nil
	if len(cs) > 1 {
		in.Parallel.Calibrations = cs
	}
	return notes, nil
}

// solveMinGPUs prints the fewest GPUs of the input's calibration that fit.
func solveMinGPUs(in *planner.Input, asJSON bool, stdout, stderr io.Writer) int {
	c, err := planner.MinGPUs(*in)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan solve: %s\n", describeErr(err))
		return exitBadInput
	}
	if asJSON {
		b, _ := json.MarshalIndent(c, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else if c.GPUs == 0 {
		fmt.Fprintf(stdout, "%s on %s: no layout of up to 4096 GPUs fits these limits\n", in.Model.ID, in.Calibration.ID)
	} else {
		fmt.Fprintf(stdout, "%s on %s: %d GPUs fit, as %s; the binding rank has %s to spare\n",
			in.Model.ID, in.Calibration.ID, c.GPUs, c.Parallel, c.Headroom)
	}
	if c.GPUs == 0 {
		return exitNoFit
	}
	return exitFits
}
