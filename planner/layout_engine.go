package planner

import "strconv"

// layoutLaunch adds a layout's sizes to a rank plan's launch command, in
// the engine's own flags: vLLM's --tensor-parallel-size,
// --pipeline-parallel-size, --data-parallel-size and
// --enable-expert-parallel (vllm/engine/arg_utils.py), SGLang's --tp, --pp,
// --dp and --ep-size (sglang/srt/server_args.py), and llama.cpp's layer
// split, -sm layer -ts with -ngl counting every device's layers
// (engine_llamacpp_layer_split.go), and its -sm tensor -ts under tensor parallelism
// (engine_llamacpp_tensor_split.go). rin is the rank's input, m the whole model.
func layoutLaunch(e *EngineReport, rin *Input, m *Model) {
	r := rin.Rank
	if e == nil || r == nil {
		return
	}
	p := &r.Layout
	switch e.Engine {
	case EngineVLLM:
		e.Launch += flagIf(" --tensor-parallel-size ", p.tp()) + flagIf(" --pipeline-parallel-size ", p.pp()) +
			flagIf(" --data-parallel-size ", p.dp())
		if p.ep() > 1 {
			e.Launch += " --enable-expert-parallel"
		}
	case EngineSGLang:
		e.Launch += flagIf(" --tp ", p.tp()) + flagIf(" --pp ", p.pp()) + flagIf(" --dp ", p.dp()) + flagIf(" --ep-size ", p.ep())
	case EngineLlamaCpp:
		llamaSplitLaunch(e, rin, m)
	}
}

func flagIf(name string, v int) string {
	if v <= 1 {
		return ""
	}
	return name + strconv.Itoa(v)
}

// modelParallel is tp × pp of the layout a rank's input belongs to, 1 for
// a single GPU: SGLang reserves tp × pp / 8 GiB for it
// (server_args.py::_handle_gpu_memory_settings).
func modelParallel(in *Input) int {
	if r := in.Rank; r != nil {
		return r.Layout.tp() * r.Layout.pp()
	}
	return 1
}
