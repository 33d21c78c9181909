package calc

// This file is llama.cpp's -ngl in the calculator: the `ngl` key, the
// layers on the GPUs counted as llama.cpp counts them (the output layer
// first, over every device of a layer split), planned under the llama.cpp
// profile, on one GPU or a layout; elsewhere it stays in the state, as the
// tensor split does. When the plan does not fit, the largest -ngl that
// does is a lever that sets it.

import (
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/printf"
)

// MaxGPULayers is the largest -ngl the page takes, the planner's bound on
// serving.llama_cpp.gpu_layers; any value past the model's layers plans
// every layer on the GPUs, as llama.cpp does.
const MaxGPULayers = 1<<12 + 1

// parseOffload reads the ngl key: a whole number from 0 (every layer) to
// MaxGPULayers.
func parseOffload(q values, s *State) error {
	if err := parseInt(q, "ngl", &s.NGL); err != nil {
		return err
	}
	if s.NGL < 0 || s.NGL > MaxGPULayers {
		n := s.NGL
		s.NGL = 0
		return &FieldError{"ngl", printf.Sprintf("%d is not a layer count from 0 (every layer) to %d", n, MaxGPULayers)}
	}
	return nil
}

// OffloadShown reports whether the page shows the -ngl field: under the
// llama.cpp profile, where it is planned.
func (s State) OffloadShown() bool { return s.Engine == planner.EngineLlamaCpp }

// gpuLayers is the planner's serving.llama_cpp.gpu_layers of s.
func (s State) gpuLayers() int {
	if !s.OffloadShown() {
		return 0
	}
	return s.NGL
}

// offloadAction is the lever of a llama.cpp plan that does not fit with
// its -ngl: the largest -ngl at which the GPU, or every device of a split,
// fits (the planner's LlamaCppAnswer.LayersThatFit), as a link that sets
// it. It reports false when there is none.
func offloadAction(s State, p *planner.Plan) (Action, bool) {
	if p.Fits || p.Engine == nil || p.Engine.LlamaCpp == nil {
		return Action{}, false
	}
	a := p.Engine.LlamaCpp
	if a.LayersThatFit <= 0 || a.LayersThatFit >= a.GPULayers {
		return Action{}, false
	}
	t := s
	t.NGL = a.LayersThatFit
	label := printf.Sprintf("GPU layers (-ngl) %d → %d, layers 0-%d on the CPU", a.GPULayers, a.LayersThatFit,
		a.Layers-a.LayersThatFit-1)
	return Action{Label: label, Query: t.Encode(), Fits: true}, true
}
