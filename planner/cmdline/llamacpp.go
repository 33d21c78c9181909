package cmdline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// llamaCppDialect is llama-server's command line (common/arg.cpp at
// b12072).
var llamaCppDialect = dialect{engine: planner.EngineLlamaCpp,
	program: func(args []string) ([]string, bool) {
		p := program(args)
		return args[1:], p == "llama-server" || p == "llama-cli" || p == "server"
	},
	flags: []flag{
		{names: names("-m", "--model"), read: strFlag(func(c *Command, v string) {
			if !c.Hub { // with -hf, -m is where the download is kept
				c.Model = v
			}
		})},
		{names: names("-hf", "-hfr", "--hf-repo"), read: strFlag(func(c *Command, v string) { c.Model, c.Hub = v, true })},
		{names: names("-hff", "--hf-file"), read: strFlag(func(c *Command, v string) { c.HubFile = v })},
		{names: names("-mm", "--mmproj"), read: strFlag(func(c *Command, v string) { c.Mmproj = v })},
		{names: names("--no-mmproj"), read: boolFlag(func(c *Command) { c.NoMmproj = true }), boolean: true},
		{names: names("-c", "--ctx-size"), read: intFlag(func(c *Command, n int) { c.CtxSize = n })},
		{names: names("-np", "--parallel"), read: intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n })},
		{names: names("-ub", "--ubatch-size"), read: intFlag(func(c *Command, n int) { c.Limits.MaxPrefillTokens = n })},
		{names: names("-b", "--batch-size"), read: intFlag(func(c *Command, n int) { c.batch = n })},
		{names: names("-kvu", "--kv-unified"), read: boolFlag(func(c *Command) { c.Serving.LlamaCpp.Unified = true }),
			boolean: true, option: "llama.cpp -kvu: one KV stream shared by every sequence"},
		{names: names("-no-kvu", "--no-kv-unified"), read: boolFlag(func(c *Command) { c.Serving.LlamaCpp.Unified = false }), boolean: true},
		{names: names("--swa-full"), read: boolFlag(func(c *Command) { c.Serving.LlamaCpp.SWAFull = true }), boolean: true},
		{names: names("-ctk", "--cache-type-k"), read: kvType(func(c *Command, d planner.KVDtype) { c.Limits.KVDtype = d })},
		{names: names("-ctv", "--cache-type-v"), read: kvType(func(c *Command, d planner.KVDtype) { c.Serving.LlamaCpp.VDtype = d })},
		{names: names("-fa", "--flash-attn"), read: flashAttn, option: "llama.cpp -fa: on, off or auto (default auto, on for CUDA)"},
		{names: names("-ngl", "--n-gpu-layers", "--gpu-layers"), read: gpuLayers,
			option: "llama.cpp -ngl: layers on the GPU, the output layer first, or all (the default)"},
		{names: names("-nofa", "--no-flash-attn"), read: boolFlag(func(c *Command) { c.Serving.LlamaCpp.FlashAttn = planner.FlashAttnOff }), boolean: true},
		{names: names("-ts", "--tensor-split"), read: tensorSplit},
		{names: names("-sm", "--split-mode"), read: splitMode},
	},
	unmodelled: llamaUnmodelled,
	apply:      llamaApply,
}

// llamaApply fills -c 0 (the trained context) and -np auto (4 slots, one
// unified cache), divides -c among the slots and caps -ub at -b.
func llamaApply(c *Command, in *planner.Input, l *planner.Limits) ([]string, error) {
	var notes []string
	ctx := c.CtxSize
	if ctx == 0 {
		if ctx = in.Model.MaxContext; ctx == 0 {
			return nil, &Error{"-c", "0 means the model's trained context, which the model does not state"}
		}
		notes = append(notes, fmt.Sprintf("-c 0: the model's trained context, %d", ctx))
	}
	np := l.MaxBatch
	if np == 0 {
		np, in.Serving.LlamaCpp.Unified = 4, true
		notes = append(notes, "-np auto: 4 slots with a unified KV cache (llama-server's default)")
	}
	l.MaxBatch, l.MaxSeqLen = np, max(ctx/np, 1)
	if c.batch > 0 {
		l.MaxPrefillTokens = min(orDefault(l.MaxPrefillTokens, 512), c.batch)
	}
	return notes, nil
}

// tensorSplit reads -ts: one share per device, split on ',' or '/' as
// common/arg.cpp splits it; each device is a pipeline stage of the layout.
func tensorSplit(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '/' })
	if len(parts) == 0 || len(parts) > 1<<10 {
		return &Error{flag, fmt.Sprintf("%q is not a list of shares", v)}
	}
	ts := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || !(f > 0) || f > 1e6 {
			return &Error{flag, fmt.Sprintf("share %q is not a positive number", p)}
		}
		ts[i] = f
	}
	c.Parallel.TensorSplit, c.Parallel.Pipeline = ts, len(ts)
	return nil
}

// splitMode reads -sm: layer (the default) and tensor are planned, none is
// one GPU. row is refused as llama.cpp b12072 refuses it on CUDA: #24216
// (commit 74976e1a) removed the CUDA split buffer type, so
// src/llama-model.cpp's make_gpu_buft_list finds no
// ggml_backend_split_buffer_type and throws "device CUDA0 does not support
// split buffers" when the model loads. tensor is LLAMA_SPLIT_MODE_TENSOR
// (common/arg.cpp), the meta device's tensor parallelism, one device per
// -ts share (planner/engine_llamacpp_tensor_split.go).
func splitMode(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch v {
	case "layer":
		c.splitNone, c.splitTensor = false, false
	case "none":
		c.splitNone, c.splitTensor = true, false
	case "tensor":
		c.splitNone, c.splitTensor = false, true
	case "row":
		return &Error{flag, "row: " + planner.LlamaCppVersion + " has no row split on CUDA (removed by #24216; " +
			"loading fails with \"device CUDA0 does not support split buffers\"): -sm layer splits the layers across the GPUs"}
	default:
		return &Error{flag, fmt.Sprintf("%q is not a split mode (none, layer, row or tensor)", v)}
	}
	return nil
}

func kvType(set func(c *Command, d planner.KVDtype)) handler {
	return func(c *Command, flag string, t *tokens) error {
		v, err := t.value(flag)
		if err != nil {
			return err
		}
		d := planner.KVDtype(strings.ToLower(v))
		switch d {
		case planner.KVDtypeF16, planner.KVDtypeBF16, planner.KVDtypeQ8_0, planner.KVDtypeQ4_0:
			set(c, d)
			return nil
		}
		return &Error{flag, fmt.Sprintf("KV type %q is not planned (want f16, bf16, q8_0 or q4_0)", v)}
	}
}

func flashAttn(c *Command, flag string, t *tokens) error {
	v, ok := t.optional()
	switch strings.ToLower(v) {
	case "on", "1", "true", "":
		c.Serving.LlamaCpp.FlashAttn = planner.FlashAttnOn
	case "off", "0", "false":
		c.Serving.LlamaCpp.FlashAttn = planner.FlashAttnOff
	case "auto":
		c.Serving.LlamaCpp.FlashAttn = planner.FlashAttnAuto
	default:
		if ok {
			return &Error{flag, fmt.Sprintf("%q is not on, off or auto", v)}
		}
	}
	return nil
}

func gpuLayers(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	if v == "auto" || v == "all" {
		c.Serving.LlamaCpp.GPULayers = 0
		return nil
	}
	n, err := strconv.Atoi(v) // llama.cpp's std::stoi, without ParseCount's suffixes
	switch {
	case err != nil || n < 0:
		return &Error{flag, CountText(v, err, "a layer count")}
	case n == 0:
		return &Error{flag, "0 runs every layer on the CPU: there is no GPU memory to plan"}
	}
	c.Serving.LlamaCpp.GPULayers = min(n, 1<<16+1)
	return nil
}

var llamaUnmodelled = map[string]string{
	"-mg": "selects among GPUs", "--main-gpu": "selects among GPUs",
	"-dev": "selects devices", "--device": "selects devices", "-ot": "places tensors by pattern",
	"--override-tensor": "places tensors by pattern", "-cmoe": "keeps experts on the CPU", "--cpu-moe": "keeps experts on the CPU",
	"-ncmoe": "keeps experts on the CPU", "--n-cpu-moe": "keeps experts on the CPU", "-nkvo": "keeps the KV cache on the CPU",
	"--no-kv-offload": "keeps the KV cache on the CPU", "--lora": "loads adapters", "--lora-scaled": "loads adapters",
	"-md": "loads a draft model", "--model-draft": "loads a draft model", "-hfd": "loads a draft model",
	"--spec-type": "speculative decoding", "-fit": "chooses -ngl and -c itself", "--fit": "chooses -ngl and -c itself",
	"--fit-target": "chooses -ngl and -c itself", "-fitt": "chooses -ngl and -c itself", "--cache-ram": "host prompt cache",
	"-cram": "host prompt cache", "--rpc": "remote devices",
}
