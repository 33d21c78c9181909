package planner

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
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

// launchThatFits makes fits, the command with -ngl that, e's launch
// command, and the command as asked, with -ngl asked, its LaunchAsAsked;
// a note names the failing one, which does not fit where ("" for one
// GPU). layers is -ngl for every layer.
func launchThatFits(e *EngineReport, fits string, asked, that, layers int, where string) {
	e.LaunchAsAsked, e.Launch = e.Launch, fits
	e.Notes = append(e.Notes, printf.Sprintf("as asked, -ngl %d does not fit%s: the launch command is the one with -ngl %d, "+
		"layers 0-%d on the CPU", asked, where, that, layers-that-1))
}

func llamaLaunch(in *Input, a *LlamaCppAnswer) string {
	var b strings.Builder
	b.WriteString("llama-server -m " + modelArg(in))
	if f := mmprojFile(in); f != "" && in.Features.Vision {
		b.WriteString(" --mmproj " + shellWord(f))
	}
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
