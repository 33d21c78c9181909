package corpus

import (
	"encoding/json"
	"fmt"
	"strings"
)

// kind is the JSON type a launch-configuration key holds. Every key may
// also be null: the engine printed it as None.
type kind int

const (
	kindInt kind = iota
	kindFloat
	kindBool
	kindString
	kindObject
	kindList
)

var kindNames = [...]string{kindInt: "a whole number", kindFloat: "a number", kindBool: "true or false", kindString: "a string", kindObject: "an object", kindList: "a list of whole numbers"}

// configKeys are the launch-configuration keys each engine's entries may
// state, by the engine's own argument names (vllm/engine/arg_utils.py,
// EngineArgs; sglang/srt/server_args.py, ServerArgs).
var configKeys = map[string]map[string]kind{
	EngineVLLM: {
		"dtype": kindString, "quantization": kindString, "max_model_len": kindInt, "gpu_memory_utilization": kindFloat,
		"tensor_parallel_size": kindInt, "pipeline_parallel_size": kindInt, "data_parallel_size": kindInt,
		"enable_expert_parallel": kindBool, "max_num_seqs": kindInt, "max_num_batched_tokens": kindInt,
		"enable_chunked_prefill": kindBool, "block_size": kindInt, "kv_cache_dtype": kindString, "enforce_eager": kindBool,
		"enable_prefix_caching": kindBool, "cpu_offload_gb": kindFloat, "kv_cache_memory_bytes": kindInt,
		"limit_mm_per_prompt": kindObject, "speculative_config": kindObject,
		"cudagraph_capture_sizes": kindList, "max_cudagraph_capture_size": kindInt,
	},
	EngineSGLang: {
		"dtype": kindString, "quantization": kindString, "context_length": kindInt, "mem_fraction_static": kindFloat,
		"tp_size": kindInt, "pp_size": kindInt, "dp_size": kindInt, "ep_size": kindInt, "enable_dp_attention": kindBool,
		"max_running_requests": kindInt, "chunked_prefill_size": kindInt, "page_size": kindInt, "kv_cache_dtype": kindString,
		"disable_cuda_graph": kindBool, "cuda_graph_max_bs": kindInt, "disable_radix_cache": kindBool,
		"max_total_tokens": kindInt, "attention_backend": kindString, "speculative_algorithm": kindString,
	},
}

// configFrom are where a configuration value may come from.
var configFrom = []string{"log", "command", "thread", "default"}

// checkValue reports whether raw holds a value of kind k, or null.
func checkValue(raw json.RawMessage, k kind) error {
	s := strings.TrimSpace(string(raw))
	if s == "null" {
		return nil
	}
	targets := [...]any{kindInt: new(int64), kindFloat: new(float64), kindBool: new(bool), kindString: new(string),
		kindObject: new(map[string]json.RawMessage), kindList: new([]int64)}
	ok := json.Unmarshal(raw, targets[k]) == nil && (k != kindObject || strings.HasPrefix(s, "{"))
	if !ok {
		return fmt.Errorf("%s is not %s", cut(s, 40), kindNames[k])
	}
	return nil
}

// cut shortens s to n bytes for a message.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
