package calc

import (
	"errors"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// This file puts what cannot be planned in the page's words: the control
// at fault by its label, not its query key or the input's JSON path, and
// a range as the control takes it ("1 to 134,217,728 tokens").

// labels name the state's query keys as the page's controls do.
var labels = map[string]string{
	"engine": "Engine", "batch": "Max batch", "len": "Max sequence length",
	"kv": "KV dtype", "block": "Tokens per block", "prefill": "Prefill chunk", "cache": "Weight cache",
	"vision": "Vision tower", "spec": "Speculative decoding k", "graphs": "CUDA-graph pool", "budget": "Budget",
	"tp": "Tensor parallel", "pp": "Pipeline stages", "ep": "Expert parallel", "dp": "Data-parallel replicas",
	"ts": "llama.cpp tensor split (-ts)", "sm": "llama.cpp split mode (-sm)", "ngl": "llama.cpp GPU layers (-ngl)",
	"query": "The link",
}

// units are what the numbers of a key count.
var units = map[string]string{"batch": "sequences", "len": "tokens", "prefill": "tokens", "block": "tokens", "ngl": "layers"}

// inputKeys are the query keys of the planner's input fields the state sets.
var inputKeys = map[string]string{
	"limits.max_seq_len": "len", "limits.max_batch": "batch", "limits.max_prefill_tokens": "prefill",
	"limits.block_tokens": "block", "limits.kv_dtype": "kv", "features.weight_cache": "cache",
	"features.spec_decode_k": "spec", "budget_bytes": "budget", "serving.engine": "engine",
	"parallel.tensor_parallel": "tp", "parallel.pipeline_parallel": "pp", "parallel.expert_parallel": "ep",
	"parallel.data_parallel": "dp", "parallel.tensor_split": "ts", "serving.llama_cpp.gpu_layers": "ngl",
}

// Label returns the label of the control that sets a query key.
func Label(key string) string { return labels[key] }

// Words says what is wrong with a state that cannot be planned in a
// person's words: a query key's or an input field's error names the
// control it belongs to; any other error is said as it is.
func Words(err error) string {
	var fe *FieldError
	var ie *planner.InputError
	switch {
	case errors.As(err, &fe) && labels[fe.Key] == "":
		return fe.Msg // a model or GPU not found names itself and the near ids
	case errors.As(err, &fe):
		return sentence(fe.Key, fe.Msg)
	case errors.As(err, &ie) && inputKeys[ie.Field] != "":
		return sentence(inputKeys[ie.Field], ie.Msg)
	case errors.As(err, &ie): // a field of the model or calibration document
		return ie.Field + ": " + ranged("", ie.Msg) + "."
	}
	return capitalize(strings.TrimSuffix(err.Error(), ".") + ".")
}

// sentence is a message about key's control, by its label.
func sentence(key, msg string) string {
	msg = strings.TrimSuffix(ranged(key, msg), ".") + "."
	if labels[key] == "" {
		return capitalize(msg)
	}
	return labels[key] + ": " + msg
}

// ranged says the planner's "%d is out of range [%d, %d]" as the control
// of key takes it: "0 is too small: it takes 1 to 134,217,728 tokens".
func ranged(key, msg string) string {
	v, lo, hi, ok := outOfRange(msg)
	if !ok {
		return msg
	}
	size := "too large"
	if v < lo {
		size = "too small"
	}
	msg = Group(v) + " is " + size + ": it takes " + Group(lo) + " to " + Group(hi)
	if u := units[key]; u != "" {
		msg += " " + u
	}
	return msg
}

// outOfRange reads the planner's "%d is out of range [%d, %d]".
func outOfRange(msg string) (v, lo, hi int64, ok bool) {
	n, rest, found := strings.Cut(msg, " is out of range [")
	bounds, tail, closed := strings.Cut(rest, "]")
	a, b, comma := strings.Cut(bounds, ", ")
	if !found || !closed || !comma || tail != "" {
		return 0, 0, 0, false
	}
	var err [3]error
	v, err[0] = strconv.ParseInt(n, 10, 64)
	lo, err[1] = strconv.ParseInt(a, 10, 64)
	hi, err[2] = strconv.ParseInt(b, 10, 64)
	return v, lo, hi, err == [3]error{}
}
