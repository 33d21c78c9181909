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

// controls is a line per query key: the key, the control's label, what
// its numbers count, and the planner input field the key sets. It is text,
// searched when a message is written, rather than maps: map literals are
// code that runs at start, and the planner's WebAssembly is at its budget.
const controls = `
engine|Engine||serving.engine
version|Engine release||serving.version
batch|Max batch|sequences|limits.max_batch
len|Max sequence length|tokens|limits.max_seq_len
kv|KV dtype||limits.kv_dtype
block|Tokens per block|tokens|limits.block_tokens
prefill|Prefill chunk|tokens|limits.max_prefill_tokens
cache|Weight cache||features.weight_cache
vision|Vision tower||
spec|Speculative decoding k||features.spec_decode_k
graphs|CUDA-graph pool||
budget|Budget||budget_bytes
tp|Tensor parallel||parallel.tensor_parallel
pp|Pipeline stages||parallel.pipeline_parallel
ep|Expert parallel||parallel.expert_parallel
dp|Data-parallel replicas||parallel.data_parallel
ts|llama.cpp tensor split (-ts)||parallel.tensor_split
sm|llama.cpp split mode (-sm)||
ngl|llama.cpp GPU layers (-ngl)|layers|serving.llama_cpp.gpu_layers
gsort|Which GPUs, sorted by||
gmin|Memory at least|GiB|
glabel|Calibration||
query|The link||
`

// control returns the line of controls whose column col is v, split
// into its columns, or nil.
func control(col int, v string) []string {
	for _, line := range strings.Split(controls, "\n") {
		if f := strings.Split(line, "|"); len(f) == 4 && v != "" && f[col] == v {
			return f
		}
	}
	return nil
}

// column returns column col of the line whose key is key, or "".
func column(key string, col int) string {
	if f := control(0, key); f != nil {
		return f[col]
	}
	return ""
}

// Label returns the label of the control that sets a query key.
func Label(key string) string { return column(key, 1) }

// Words says what is wrong with a state that cannot be planned in a
// person's words: a query key's or an input field's error names the
// control it belongs to; any other error is said as it is.
func Words(err error) string {
	var fe *FieldError
	var ie *planner.InputError
	switch {
	case errors.As(err, &fe) && Label(fe.Key) == "":
		return fe.Msg // a model or GPU not found names itself and the near ids
	case errors.As(err, &fe):
		return sentence(fe.Key, fe.Msg)
	case errors.As(err, &ie) && control(3, ie.Field) != nil:
		return sentence(control(3, ie.Field)[0], ie.Msg)
	case errors.As(err, &ie): // a field of the model or calibration document
		return ie.Field + ": " + ranged("", ie.Msg) + "."
	}
	return capitalize(strings.TrimSuffix(err.Error(), ".") + ".")
}

// sentence is a message about key's control, by its label.
func sentence(key, msg string) string {
	msg = strings.TrimSuffix(ranged(key, msg), ".") + "."
	if Label(key) == "" {
		return capitalize(msg)
	}
	return Label(key) + ": " + msg
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
	if u := column(key, 2); u != "" {
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
