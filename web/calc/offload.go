package calc

// This file is llama.cpp's -ngl in the calculator: the `ngl` key, the
// layers on the GPUs counted as llama.cpp counts them (the output layer
// first, over every device of a layer split), planned under the llama.cpp
// profile, on one GPU or a layout; elsewhere it stays in the state, as the
// tensor split does. When the plan does not fit, the largest -ngl that
// does is a lever that sets it.

import (
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
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

// OffloadShown reports whether the page shows the -ngl field: under an
// engine whose profile plans layers left on the CPU (llama.cpp's).
func (s State) OffloadShown() bool {
	p := s.Engine.Profile()
	return p != nil && p.LayerOffload
}

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

// hostMemory states what a llama.cpp plan keeps in host memory, for the
// whole process: token_embd, the layers -ngl leaves on the CPU and their
// KV, the logits buffer. A layer split lists each item with the device
// that owns it, so its devices' lists are summed; any other layout's ranks
// each list the process's own, so the binding rank's is it. It is "" when
// the plan lists none.
func hostMemory(p, b *planner.Plan) string {
	plans := []*planner.Plan{b}
	if l := p.Layout; l != nil && len(b.Input.Rank.Layout.TensorSplit) > 0 {
		plans = plans[:0]
		for i := range l.Ranks {
			plans = append(plans, &l.Ranks[i].Plan)
		}
	}
	var total planner.Bytes
	var parts []string
	for _, key := range hostOrder {
		for _, q := range plans {
			if q.Engine == nil {
				continue
			}
			for _, it := range q.Engine.Host {
				if it.Key != key {
					continue
				}
				total += it.Bytes
				if it.Bytes >= planner.MiB {
					parts = append(parts, it.Name+" "+sizeOf(it.Bytes))
				}
			}
		}
	}
	if total == 0 {
		return ""
	}
	return "Host memory: " + sizeOf(total) + ": " + strings.Join(parts, ", ")
}

// hostOrder is the host items a llama.cpp plan lists, as a process holds
// them: the weights, then the KV, then the logits.
var hostOrder = [...]string{"token_embd", "cpu_layers", "cpu_kv", "output_buffer"}
