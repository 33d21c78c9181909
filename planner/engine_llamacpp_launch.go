package planner

import (
	"strconv"
	"strings"
)

// This file is llama.cpp's launch command and its defaults: the
// llama-server flags that pin a plan, and how the profile resolves what
// the command leaves to llama-server.

// normalize writes llama-server's -np auto (4 slots, one unified cache)
// and a layout's equal shares into in.
func (llamaCpp) normalize(in *Input) {
	if in.Limits.MaxBatch == 0 {
		in.Limits.MaxBatch, in.Serving.LlamaCpp.Unified = 4, true
	}
	defaultTensorSplit(in)
}

// kvDtypeAllowed: llama.cpp needs flash attention for a quantized V cache,
// and its -sm tensor has no quantized cache at all
// (engine_llamacpp_tensor_split.go).
func (llamaCpp) kvDtypeAllowed(in *Input, d KVDtype) bool {
	if isQuantKV(d) && (llamaTensor(in) || llamaTensorRank(in)) {
		return false
	}
	return in.Serving.LlamaCpp.FlashAttn.on() || !isQuantKV(d) || in.Serving.LlamaCpp.VDtype != ""
}

// layoutLaunch is llama.cpp's layer split, -sm layer -ts with -ngl
// counting every device's layers (engine_llamacpp_layer_split.go), and its
// -sm tensor -ts under tensor parallelism (engine_llamacpp_tensor_split.go).
func (llamaCpp) layoutLaunch(e *EngineReport, rin *Input, m *Model) { llamaSplitLaunch(e, rin, m) }

func llamaLaunch(in *Input, a *LlamaCppAnswer) string {
	var b strings.Builder
	b.WriteString("llama-server -m " + modelArg(in))
	b.WriteString(" -c " + strconv.Itoa(a.CtxSize) + " -np " + strconv.Itoa(a.Parallel))
	if a.Unified && a.Parallel > 1 {
		b.WriteString(" -kvu")
	}
	b.WriteString(" -ctk " + string(in.Limits.KVDtype.normalize()) + " -ctv " + string(vDtype(in)))
	b.WriteString(" -fa " + onOff(a.FlashAttn) + " -ub " + strconv.Itoa(a.Ubatch) + " -ngl " + strconv.Itoa(a.GPULayers))
	if in.Serving.LlamaCpp.SWAFull {
		b.WriteString(" --swa-full")
	}
	return b.String()
}
