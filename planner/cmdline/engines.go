package cmdline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// The flag tables: llama-server (common/arg.cpp at b12072), vllm serve
// (vllm/engine/arg_utils.py), sglang (python/sglang/srt/server_args.py).

var llamaFlags = func() map[string]handler {
	m := map[string]handler{}
	aliases(m, strFlag(func(c *Command, v string) { c.Model = v }), "-m", "--model", "-hf", "--hf-repo", "-hfr")
	aliases(m, strFlag(func(c *Command, v string) { c.Mmproj = v }), "-mm", "--mmproj")
	aliases(m, intFlag(func(c *Command, n int) { c.CtxSize = n }), "-c", "--ctx-size")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n }), "-np", "--parallel")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxPrefillTokens = n }), "-ub", "--ubatch-size")
	aliases(m, intFlag(func(c *Command, n int) { c.batch = n }), "-b", "--batch-size")
	aliases(m, boolFlag(func(c *Command) { c.Serving.LlamaCpp.Unified = true }), "-kvu", "--kv-unified")
	aliases(m, boolFlag(func(c *Command) { c.Serving.LlamaCpp.Unified = false }), "-no-kvu", "--no-kv-unified")
	aliases(m, boolFlag(func(c *Command) { c.Serving.LlamaCpp.SWAFull = true }), "--swa-full")
	aliases(m, kvType(func(c *Command, d planner.KVDtype) { c.Limits.KVDtype = d }), "-ctk", "--cache-type-k")
	aliases(m, kvType(func(c *Command, d planner.KVDtype) { c.Serving.LlamaCpp.VDtype = d }), "-ctv", "--cache-type-v")
	aliases(m, flashAttn, "-fa", "--flash-attn")
	aliases(m, gpuLayers, "-ngl", "--gpu-layers", "--n-gpu-layers")
	aliases(m, boolFlag(func(c *Command) { c.Serving.LlamaCpp.FlashAttn = planner.FlashAttnOff }), "-nofa", "--no-flash-attn")
	aliases(m, tensorSplit, "-ts", "--tensor-split")
	aliases(m, splitMode, "-sm", "--split-mode")
	return m
}()

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
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 0:
		return &Error{flag, fmt.Sprintf("%q is not a layer count", v)}
	case n == 0:
		return &Error{flag, "0 runs every layer on the CPU: there is no GPU memory to plan"}
	}
	c.Serving.LlamaCpp.GPULayers = min(n, 1<<16+1)
	return nil
}

var vllmFlags = func() map[string]handler {
	m := parallel(map[string]func(*planner.Parallel) *int{"-tp": tensorSize, "--tensor-parallel-size": tensorSize,
		"-pp": pipelineSize, "--pipeline-parallel-size": pipelineSize, "-dp": dataSize, "--data-parallel-size": dataSize})
	aliases(m, boolFlag(func(c *Command) { c.ExpertAll = true }), "--enable-expert-parallel", "-ep")
	aliases(m, strFlag(func(c *Command, v string) { c.Model = v }), "--model")
	aliases(m, maxModelLen, "--max-model-len")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n }), "--max-num-seqs")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxPrefillTokens = n }), "--max-num-batched-tokens")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.BlockTokens = n }), "--block-size")
	aliases(m, fracFlag(func(c *Command, f float64) { c.Serving.VLLM.GPUMemoryUtilization = f }), "--gpu-memory-utilization")
	aliases(m, kvBytes, "--kv-cache-memory-bytes", "--kv-cache-memory")
	aliases(m, poolKVType, "--kv-cache-dtype")
	aliases(m, boolFlag(func(c *Command) { c.Serving.VLLM.EnforceEager = true }), "--enforce-eager")
	aliases(m, weightDtype, "--dtype")
	aliases(m, quantization, "--quantization", "-q")
	return m
}()

func maxModelLen(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	if v == "-1" || v == "auto" {
		c.AutoLen = true
		return nil
	}
	n, err := parseCount(v)
	if err != nil || n < 1 {
		return &Error{flag, fmt.Sprintf("%q is not a length", v)}
	}
	c.Limits.MaxSeqLen = n
	return nil
}

func kvBytes(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	b, err := planner.ParseBytes(v)
	if err != nil || b <= 0 {
		return &Error{flag, fmt.Sprintf("%q is not a size", v)}
	}
	c.Serving.VLLM.KVCacheMemoryBytes = b
	return nil
}

// poolKVType reads vLLM's and SGLang's --kv-cache-dtype.
func poolKVType(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "auto":
		c.Limits.KVDtype = ""
	case "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc":
		c.Limits.KVDtype = planner.KVDtypeFP8
	case "bfloat16", "bf16":
		c.Limits.KVDtype = planner.KVDtypeBF16
	case "float16", "half", "fp16":
		c.Limits.KVDtype = planner.KVDtypeF16
	default:
		return &Error{flag, fmt.Sprintf("KV cache dtype %q is not planned (want auto, fp8, bfloat16)", v)}
	}
	return nil
}

func weightDtype(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "auto":
	case "bfloat16", "bf16":
		c.WeightsDtype = "bf16"
	case "float16", "half", "fp16":
		c.WeightsDtype = "f16"
	case "float32", "float", "fp32":
		c.WeightsDtype = "f32"
	default:
		return &Error{flag, fmt.Sprintf("dtype %q is not planned", v)}
	}
	return nil
}

// quantization maps --quantization to the weights' storage format.
func quantization(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch q := strings.ToLower(v); q {
	case "fp8", "fbgemm_fp8", "modelopt":
		c.WeightsDtype = "fp8"
	case "awq", "awq_marlin", "gptq", "gptq_marlin", "compressed-tensors":
		if c.WeightsDtype == "" {
			c.WeightsDtype = "int4"
		}
	case "mxfp4", "modelopt_fp4", "nvfp4":
		c.WeightsDtype = "nvfp4"
	case "none", "":
	default:
		return &Error{flag, fmt.Sprintf("quantization %q is not planned", v)}
	}
	return nil
}

var sglangFlags = func() map[string]handler {
	m := parallel(map[string]func(*planner.Parallel) *int{"--tp-size": tensorSize, "--tp": tensorSize,
		"--tensor-parallel-size": tensorSize, "--dp-size": dataSize, "--dp": dataSize, "--pp-size": pipelineSize,
		"--pipeline-parallel-size": pipelineSize, "--ep-size": expertSize, "--ep": expertSize})
	aliases(m, strFlag(func(c *Command, v string) { c.Model = v }), "--model-path", "--model")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxSeqLen = n }), "--context-length")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n }), "--max-running-requests")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.MaxPrefillTokens = n }), "--chunked-prefill-size")
	aliases(m, intFlag(func(c *Command, n int) { c.Limits.BlockTokens = n }), "--page-size")
	aliases(m, intFlag(func(c *Command, n int) { c.Serving.SGLang.CUDAGraphMaxBS = n }), "--cuda-graph-max-bs")
	aliases(m, fracFlag(func(c *Command, f float64) { c.Serving.SGLang.MemFractionStatic = f }), "--mem-fraction-static")
	aliases(m, fracFlag(func(c *Command, f float64) { c.Serving.SGLang.SWAFullTokensRatio = f }), "--swa-full-tokens-ratio")
	aliases(m, poolKVType, "--kv-cache-dtype")
	aliases(m, weightDtype, "--dtype")
	aliases(m, quantization, "--quantization")
	return m
}()

// unmodelled lists, per engine, the flags that change memory in a way the
// planner does not model yet, and why.
func unmodelled(e planner.EngineName) map[string]string {
	switch e {
	case planner.EngineLlamaCpp:
		return llamaUnmodelled
	case planner.EngineVLLM:
		return vllmUnmodelled
	}
	return sglangUnmodelled
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

var vllmUnmodelled = map[string]string{
	"--cpu-offload-gb": "offloads weights to the CPU", "--speculative-config": "speculative decoding",
	"--enable-lora": "loads adapters", "--max-lora-rank": "loads adapters", "--max-loras": "loads adapters",
	"--kv-transfer-config": "moves KV between instances",
	"--kv-offloading-size": "offloads KV", "--calculate-kv-scales": "changes the KV format", "--mamba-ssm-cache-dtype": "hybrid state",
	"--max-num-partial-prefills": "partial prefills", "--num-gpu-blocks-override": "fixes the block count",
}

var sglangUnmodelled = map[string]string{
	"--speculative-algorithm": "speculative decoding", "--speculative-draft-model-path": "loads a draft model",
	"--enable-lora": "loads adapters", "--lora-paths": "loads adapters", "--max-total-tokens": "caps the KV pool",
	"--enable-dp-attention": "splits attention across GPUs", "--cpu-offload-gb": "offloads weights to the CPU",
	"--enable-hierarchical-cache": "host KV cache", "--mamba-ssm-dtype": "hybrid state",
}

// Apply writes the command into in, whose model is loaded: the engine, its
// options and its limits, with the engine's defaults where the command is
// silent. It reports what it filled in, for the user to read.
func (c *Command) Apply(in *planner.Input) ([]string, error) {
	in.Serving = c.Serving
	l := c.Limits
	var notes []string
	switch c.Engine {
	case planner.EngineLlamaCpp:
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
	case planner.EngineVLLM, planner.EngineSGLang:
		if l.MaxSeqLen == 0 || c.AutoLen {
			if l.MaxSeqLen = in.Model.MaxContext; l.MaxSeqLen == 0 {
				return nil, &Error{"--max-model-len", "not given, and the model does not state its context"}
			}
			notes = append(notes, fmt.Sprintf("length: the model's trained context, %d", l.MaxSeqLen))
		}
	}
	in.Limits = l
	in.Parallel.Tensor, in.Parallel.Pipeline = c.Parallel.Tensor, c.Parallel.Pipeline
	in.Parallel.Data, in.Parallel.Expert = c.Parallel.Data, c.Parallel.Expert
	in.Parallel.TensorSplit = c.Parallel.TensorSplit
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
