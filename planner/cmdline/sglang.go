package cmdline

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// sglangDialect is `python -m sglang.launch_server` and `sglang serve`
// (python/sglang/srt/server_args.py).
var sglangDialect = dialect{engine: planner.EngineSGLang,
	program: func(args []string) ([]string, bool) {
		p := program(args)
		switch {
		case strings.HasPrefix(p, "python") && len(args) > 2 && args[1] == "-m" &&
			(args[2] == "sglang.launch_server" || args[2] == "sglang.srt.server"):
			return args[3:], true
		case p == "sglang" && len(args) > 1 && args[1] == "serve":
			return args[2:], true
		}
		return nil, false
	},
	flags: append(parallel(sizeFlag{names("--tp-size", "--tp", "--tensor-parallel-size"), tensorSize},
		sizeFlag{names("--dp-size", "--dp"), dataSize}, sizeFlag{names("--pp-size", "--pp", "--pipeline-parallel-size"), pipelineSize},
		sizeFlag{names("--ep-size", "--ep"), expertSize}),
		noCustomAllReduce,
		flag{names: names("--model-path", "--model"), read: strFlag(func(c *Command, v string) { c.Model = v })},
		flag{names: names("--context-length"), read: intFlag(func(c *Command, n int) { c.Limits.MaxSeqLen = n })},
		flag{names: names("--max-running-requests"), read: intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n })},
		flag{names: names("--chunked-prefill-size"), read: chunkedPrefill},
		flag{names: names("--page-size"), read: intFlag(func(c *Command, n int) { c.Limits.BlockTokens = n })},
		flag{names: names("--cuda-graph-max-bs"), read: intFlag(func(c *Command, n int) { c.Serving.SGLang.CUDAGraphMaxBS = n })},
		flag{names: names("--mem-fraction-static"), read: fracFlag(func(c *Command, f float64) { c.Serving.SGLang.MemFractionStatic = f }),
			option: "SGLang's static share of the device's memory (default: SGLang's formula)"},
		flag{names: names("--swa-full-tokens-ratio"), read: fracFlag(func(c *Command, f float64) { c.Serving.SGLang.SWAFullTokensRatio = f })},
		flag{names: names("--kv-cache-dtype"), read: poolKVType},
		flag{names: names("--dtype"), read: weightDtype},
		flag{names: names("--quantization"), read: quantization}),
	unmodelled: sglangUnmodelled,
	apply:      poolApply("--context-length"),
}

var sglangUnmodelled = map[string]string{
	"--speculative-algorithm": "speculative decoding", "--speculative-draft-model-path": "loads a draft model",
	"--enable-lora": "loads adapters", "--lora-paths": "loads adapters", "--max-total-tokens": "caps the KV pool",
	"--enable-dp-attention": "splits attention across GPUs", "--cpu-offload-gb": "offloads weights to the CPU",
	"--enable-hierarchical-cache": "host KV cache", "--mamba-ssm-dtype": "hybrid state",
}

// chunkedPrefill reads --chunked-prefill-size: a count, or -1, SGLang's
// "no chunking" (server_args.py: chunking is on only when the size is
// positive).
func chunkedPrefill(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	if v == "-1" {
		c.Serving.SGLang.ChunkedPrefillOff = true
		return nil
	}
	n, err := ParseCount(v)
	if err != nil || n < 0 {
		return &Error{flag, CountText(v, err, "a count or -1")}
	}
	c.Limits.MaxPrefillTokens = n
	return nil
}
