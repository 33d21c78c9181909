package cmdline

import (
	"fmt"

	"github.com/vramplan/vramplan/planner"
)

// Apply writes the command into in, whose model is loaded: the engine, its
// options and its limits, with the engine's defaults where the command is
// silent. It reports what it filled in, for the user to read.
func (c *Command) Apply(in *planner.Input) ([]string, error) {
	d := dialectOf(c.Engine)
	if d == nil {
		return nil, &Error{"command line", fmt.Sprintf("engine %q has no command line", c.Engine)}
	}
	in.Serving = c.Serving
	l := c.Limits
	notes, err := d.apply(c, in, &l)
	if err != nil {
		return nil, err
	}
	in.Limits = l
	in.Parallel.Tensor, in.Parallel.Pipeline = c.Parallel.Tensor, c.Parallel.Pipeline
	in.Parallel.Data, in.Parallel.Expert = c.Parallel.Data, c.Parallel.Expert
	in.Parallel.TensorSplit, in.Parallel.NoCustomAllReduce = c.Parallel.TensorSplit, c.Parallel.NoCustomAllReduce
	if c.splitNone { // llama-server -sm none: one GPU, whatever -ts says
		in.Parallel.Pipeline, in.Parallel.TensorSplit = 0, nil
	}
	if c.splitTensor { // llama-server -sm tensor: -ts's devices split every layer
		if len(in.Parallel.TensorSplit) < 2 {
			return nil, &Error{"-sm", "tensor: give -ts with one share per GPU (-ts 1,1 for two even GPUs): " +
				"llama-server uses every GPU it finds, which the planner cannot see"}
		}
		in.Parallel.Tensor, in.Parallel.Pipeline = len(in.Parallel.TensorSplit), 0
	}
	if c.ExpertAll { // vLLM: the experts span the tensor and data groups
		in.Parallel.Expert = max(c.Parallel.Tensor, 1) * max(c.Parallel.Data, 1)
	}
	return notes, nil
}

func orDefault(n, d int) int {
	if n > 0 {
		return n
	}
	return d
}
