package planner

// This file re-plans a llama.cpp layer split that does not fit with fewer
// layers on the GPUs: -ngl counts the layers of every device, and
// load_tensors keeps the first n_layer + 1 − ngl repeating layers on the
// CPU and splits the rest by -ts (llamaDevice). The largest -ngl at which
// every device fits is what llama-server should be started with.

import (
	"strconv"
	"strings"
)

// llamaLayersThatFit is the largest -ngl below the input's at which every
// device of its layer split fits and holds a repeating layer, 0 when none
// does. Fewer layers on the GPUs never need more of any device, so the
// search is a binary one (largest), each step one plan per distinct device.
func llamaLayersThatFit(in *Input) int {
	n := in.Model.NumLayers()
	_, act := in.Parallel.llamaOffload(n)
	t := *in
	valid := func(ngl int) bool {
		t.Serving.LlamaCpp.GPULayers = ngl
		return validateStages(&t) == nil
	}
	lo := t.Parallel.pp() + 1 // fewer leaves a device without a repeating layer
	for lo < act && !valid(lo) {
		lo++
	}
	k := largest(lo, act-1, func(ngl int) bool {
		if !valid(ngl) {
			return false
		}
		over, _ := layoutOver(&t)
		return over <= 0
	})
	if k < lo {
		return 0
	}
	return k
}

// llamaOffloadNote tells every device of a layer split that does not fit
// the -ngl at which it would, with the launch command, and sets their
// answers' LayersThatFit to it.
func llamaOffloadNote(in *Input, rs []RankPlan) {
	if !in.Parallel.llamaSplit() {
		return
	}
	k := llamaLayersThatFit(in)
	_, act := in.Parallel.llamaOffload(in.Model.NumLayers())
	for i := range rs {
		e := rs[i].Plan.Engine
		if e == nil || e.LlamaCpp == nil {
			continue
		}
		e.LlamaCpp.LayersThatFit = k
		if k == 0 {
			e.Notes = append(e.Notes, "no -ngl fits every device of this split: another -ts, another GPU, or a smaller context")
			continue
		}
		launchThatFits(e, strings.Replace(e.Launch, " -ngl "+strconv.Itoa(act)+" ", " -ngl "+strconv.Itoa(k)+" ", 1),
			act, k, in.Model.NumLayers()+1, " on every device of the layout")
	}
}
