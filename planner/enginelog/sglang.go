package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// sglangLog is how SGLang's start-up log is read: its server arguments,
// the model runner's lines (python/sglang/srt/model_executor/model_runner.py)
// and the scheduler's pool line, each prefixed "[date time TPn]" by a
// rank (DPn and PPn where those are more than one). SGLang prints no
// version line of its own.
var sglangLog = logReader{engine: planner.EngineSGLang,
	markers: []string{"B", "ServerArgs(", "x_total_num_tokens="},
	claims: func(s string) bool {
		for _, m := range sglangMarkers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	},
	read:  (*reader).sglangLine,
	facts: &sglangFacts,
}

var sglangFacts = logFacts{engine: planner.EngineSGLang, figures: []string{"weights", "kv"}, settings: settingsPool}

// sglangMarkers are what every line sglangLine reads holds one of.
var sglangMarkers = []string{"KV Cache is allocated", "Load weight end", "Memory pool end", "Capture cuda graph end",
	"server_args=ServerArgs(", "max_total_num_tokens=", "The available memory for KV cache is", "sglang"}

// sglangLine reads one line of an SGLang log.
func (r *reader) sglangLine(s string) bool {
	switch {
	case strings.Contains(s, "Load weight end"):
		if v, res, ok := binarySize(s, "mem usage="); ok {
			r.set("weights", "model weights", v, res)
		}
		if d, ok := argValue(s, "dtype", false); ok && r.settings.Dtype == "" {
			r.settings.Dtype, r.stated = d, true
		}
		return true
	case strings.Contains(s, "KV Cache is allocated"):
		return r.sglangPool(s)
	case strings.Contains(s, "server_args=ServerArgs("):
		if readArgs(s[strings.Index(s, "server_args=ServerArgs("):], false, sglangArgs, &r.settings, &r.pool) {
			r.stated = true
		}
		return true
	case strings.Contains(s, "max_total_num_tokens="):
		return r.sglangScheduler(s)
	}
	for _, f := range []struct{ marker, at, key, name string }{
		{"Memory pool end", "avail mem=", "free_after_pool", "free after the KV pool"},
		{"Capture cuda graph end", "mem usage=", "cuda_graph_capture", "CUDA graph capture"},
		{"The available memory for KV cache is", "The available memory for KV cache is", "kv_budget", "memory for the KV cache"},
	} {
		if strings.Contains(s, f.marker) {
			if v, res, ok := binarySize(s, f.at); ok {
				r.report(r.as, f.key, f.name, v, res)
				return true
			}
		}
	}
	return false
}

// sglangPool reads "KV Cache is allocated. #tokens: N, K size: …, V size: …"
// (mem_cache/memory_pool.py, MHATokenToKVPool.__init__; later releases
// print the dtype first).
func (r *reader) sglangPool(s string) bool {
	n, ok := atoi(s, "#tokens:")
	if !ok {
		return false
	}
	r.isPool, r.pool.Tokens = true, int64(n)
	k, kr, ok1 := binarySize(s, "K size:")
	v, vr, ok2 := binarySize(s, "V size:")
	if ok1 && ok2 {
		r.set("kv", "KV cache (K + V)", k+v, kr+vr)
	}
	if d, ok := argValue(strings.ReplaceAll(s, "dtype: ", "dtype="), "dtype", false); ok {
		r.settings.KVDtype, r.stated = d, true
	}
	return true
}

// sglangScheduler reads the scheduler's "max_total_num_tokens=N, …,
// context_len=L" line: the pool's tokens, when no KV line said them, and
// the request length.
func (r *reader) sglangScheduler(s string) bool {
	n, ok := atoi(s, "max_total_num_tokens=")
	if !ok {
		return false
	}
	if r.pool.Tokens == 0 {
		r.isPool, r.pool.Tokens = true, int64(n)
	}
	if c, ok := atoi(s, "context_len="); ok && c > 0 && r.settings.MaxLen == 0 {
		r.settings.MaxLen, r.stated = c, true
	}
	return true
}

// sglangArgs are the keys of ServerArgs the check plans with.
var sglangArgs = []setting{
	{"model_path", setString(func(st *Settings) *string { return &st.Model })},
	{"dtype", setString(func(st *Settings) *string { return &st.Dtype })},
	{"kv_cache_dtype", setString(func(st *Settings) *string { return &st.KVDtype })},
	{"tp_size", setCount(func(st *Settings) *int { return &st.TensorParallel })},
	{"pp_size", setCount(func(st *Settings) *int { return &st.PipelineParallel })},
	{"context_length", setCount(func(st *Settings) *int { return &st.MaxLen })},
	{"max_running_requests", setCount(func(st *Settings) *int { return &st.MaxNumSeqs })},
	{"chunked_prefill_size", setCount(func(st *Settings) *int { return &st.MaxBatchedTokens })},
	{"disable_cuda_graph", setTrue(func(st *Settings) *bool { return &st.EnforceEager })},
	{"mem_fraction_static", func(st *Settings, _ *PoolFigures, v string) {
		if f, ok := fraction(v); ok {
			st.MemFractionStatic = f
		}
	}},
}

// sglangInput is the configuration an SGLang log states.
func sglangInput(l *Log, in *planner.Input) error {
	if err := poolInput(l, in); err != nil {
		return err
	}
	if st := l.Settings; st != nil {
		in.Serving.SGLang.MemFractionStatic = st.MemFractionStatic
		in.Limits.MaxBatch, in.Limits.MaxPrefillTokens = st.MaxNumSeqs, st.MaxBatchedTokens
		if strings.HasPrefix(st.KVDtype, "fp8") {
			in.Limits.KVDtype = planner.KVDtypeFP8
		}
	}
	return nil
}

// binarySize reads a size as vLLM V0 and SGLang print it: their "GB" is
// GiB, bytes divided by 1024³ (SGLang's memory_pool.py and model_runner.py,
// GB = 1024 * 1024 * 1024; vLLM's model_runner.py load_model, 2**30; the K
// and V sizes of vllm-project/vllm issue #21348's log bear it out against
// the model's shape).
func binarySize(s, marker string) (planner.Bytes, planner.Bytes, bool) {
	v, res, ok := size(s, marker)
	if i := strings.Index(s, marker); ok && i >= 0 {
		if _, rest, _ := number(s[i:], marker); strings.HasPrefix(strings.TrimSpace(rest), "GB") {
			const gib = float64(planner.GiB) / 1e9
			v, res = planner.Bytes(float64(v)*gib), planner.Bytes(float64(res)*gib)
		}
	}
	return v, res, ok
}
