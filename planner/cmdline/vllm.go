package cmdline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// vllmDialect is `vllm serve` (vllm/engine/arg_utils.py).
var vllmDialect = dialect{engine: planner.EngineVLLM,
	program: func(args []string) ([]string, bool) {
		if program(args) == "vllm" && len(args) > 1 && args[1] == "serve" {
			return args[2:], true
		}
		return nil, false
	},
	positional: true,
	flags: append(parallel(sizeFlag{names("-tp", "--tensor-parallel-size"), tensorSize},
		sizeFlag{names("-pp", "--pipeline-parallel-size"), pipelineSize}, sizeFlag{names("-dp", "--data-parallel-size"), dataSize}),
		flag{names: names("--enable-expert-parallel", "-ep"), read: boolFlag(func(c *Command) { c.ExpertAll = true }), boolean: true},
		noCustomAllReduce,
		flag{names: names("--model"), read: strFlag(func(c *Command, v string) { c.Model = v })},
		flag{names: names("--max-model-len"), read: maxModelLen},
		flag{names: names("--max-num-seqs"), read: intFlag(func(c *Command, n int) { c.Limits.MaxBatch = n })},
		flag{names: names("--max-num-batched-tokens"), read: intFlag(func(c *Command, n int) { c.Limits.MaxPrefillTokens = n })},
		flag{names: names("--block-size"), read: intFlag(func(c *Command, n int) { c.Limits.BlockTokens = n })},
		flag{names: names("--gpu-memory-utilization"), read: fracFlag(func(c *Command, f float64) { c.Serving.VLLM.GPUMemoryUtilization = f }),
			option: "vLLM's share of the device's total memory (default 0.92)"},
		flag{names: names("--kv-cache-memory-bytes", "--kv-cache-memory"), read: kvBytes},
		flag{names: names("--kv-cache-dtype"), read: poolKVType},
		flag{names: names("--enforce-eager"), read: boolFlag(func(c *Command) { c.Serving.VLLM.EnforceEager = true }), boolean: true},
		flag{names: names("--max-cudagraph-capture-size"), read: intFlag(func(c *Command, n int) { c.Serving.VLLM.MaxCaptureSize = n })},
		flag{names: names("--cudagraph-capture-sizes"), read: captureSizes},
		flag{names: names("--compilation-config", "-cc"), read: compilationConfig},
		flag{names: names("--dtype"), read: weightDtype},
		flag{names: names("--quantization", "-q"), read: quantization}),
	unmodelled: vllmUnmodelled,
	apply:      poolApply("--max-model-len"),
}

func maxModelLen(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	if v == "-1" || v == "auto" {
		c.AutoLen = true
		return nil
	}
	n, err := ParseCount(v)
	if err != nil || n < 1 {
		return &Error{flag, CountText(v, err, "a length")}
	}
	c.Limits.MaxSeqLen = n
	return nil
}

// captureSizes reads --cudagraph-capture-sizes: the sizes as arguments of
// their own (argparse's nargs="+", vllm/engine/arg_utils.py), or in one
// argument, separated by commas, bracketed or not.
func captureSizes(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	var sizes []int
	for {
		if sizes, err = appendSizes(sizes, flag, v); err != nil {
			return err
		}
		if t.has || len(t.args) == 0 || !isSize(t.args[0]) {
			break
		}
		v = t.next()
	}
	c.Serving.VLLM.CaptureSizes = &sizes
	return nil
}

// compilationConfig reads --compilation-config's JSON object: its CUDA-graph
// capture sizes and largest size, which VllmConfig._set_cudagraph_sizes
// reads as it reads --cudagraph-capture-sizes and
// --max-cudagraph-capture-size (vllm/engine/arg_utils.py at upstream
// 579602aa4 refuses both forms of one together). Its other keys, and a
// value that is no object (an optimization level), are not planned: they
// are listed as ignored.
func compilationConfig(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	var cc map[string]json.RawMessage
	if json.Unmarshal([]byte(v), &cc) != nil {
		c.Ignored = append(c.Ignored, flag+" "+v)
		return nil
	}
	if raw, ok := cc["cudagraph_capture_sizes"]; ok {
		var sizes []int
		if json.Unmarshal(raw, &sizes) != nil || slices.ContainsFunc(sizes, func(n int) bool { return n < 1 }) {
			return &Error{flag, fmt.Sprintf("cudagraph_capture_sizes %s is not a list of batch sizes", raw)}
		}
		c.Serving.VLLM.CaptureSizes = &sizes
		delete(cc, "cudagraph_capture_sizes")
	}
	if raw, ok := cc["max_cudagraph_capture_size"]; ok {
		if json.Unmarshal(raw, &c.Serving.VLLM.MaxCaptureSize) != nil || c.Serving.VLLM.MaxCaptureSize < 1 {
			return &Error{flag, fmt.Sprintf("max_cudagraph_capture_size %s is not a batch size", raw)}
		}
		delete(cc, "max_cudagraph_capture_size")
	}
	if len(cc) > 0 {
		rest, _ := json.Marshal(cc) // keys sorted
		c.Ignored = append(c.Ignored, flag+" "+string(rest))
	}
	return nil
}

// appendSizes appends the comma-separated sizes of v to s.
func appendSizes(s []int, flag, v string) ([]int, error) {
	for _, f := range strings.Split(strings.Trim(v, "[] "), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := ParseCount(f)
		if err != nil || n < 1 {
			return nil, &Error{flag, CountText(v, err, "a list of batch sizes")}
		}
		s = append(s, n)
	}
	return s, nil
}

// isSize reports whether a, the next argument, is more of a size list.
func isSize(a string) bool {
	_, err := appendSizes(nil, "", a)
	return err == nil && !strings.HasPrefix(a, "-")
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

var vllmUnmodelled = map[string]string{
	"--cpu-offload-gb": "offloads weights to the CPU", "--speculative-config": "speculative decoding",
	"--enable-lora": "loads adapters", "--max-lora-rank": "loads adapters", "--max-loras": "loads adapters",
	"--kv-transfer-config": "moves KV between instances",
	"--kv-offloading-size": "offloads KV", "--calculate-kv-scales": "changes the KV format", "--mamba-ssm-cache-dtype": "hybrid state",
	"--max-num-partial-prefills": "partial prefills", "--num-gpu-blocks-override": "fixes the block count",
}
