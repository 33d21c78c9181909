package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// vllmLog is how vLLM's start-up log is read.
var vllmLog = logReader{engine: planner.EngineVLLM,
	markers: []string{"B", "KV", "Maximum concurrency", "gpu_memory_utilization"},
	claims: func(s string) bool {
		for _, m := range vllmMarkers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	},
	read: (*reader).vllmLine,
	input: func(l *Log, in *planner.Input) error {
		if err := poolInput(l, in); err != nil {
			return err
		}
		if u := l.Pool; u != nil && u.ConcurrencyLen > 0 && u.Utilization > 0 && u.Utilization <= 1 {
			in.Serving.VLLM.GPUMemoryUtilization = u.Utilization
		}
		return nil
	},
	figures:  []string{"weights", "kv", "activation_peak", "non_torch"},
	settings: settingsPool,
	versions: []versionLine{{marker: "vLLM API server version "}, {marker: "V1 LLM engine (v"}},
}

// vllmMarkers are what every line vllmLine reads holds one of.
var vllmMarkers = []string{"Model loading took", "model weights take", "non_torch_memory takes", "PyTorch activation peak memory takes",
	"the rest of the memory reserved for KV Cache is", "Available KV cache memory:", "GPU KV cache size:", "Maximum concurrency for",
	"gpu_memory_utilization ("}

// vllmLine reads one line of a vLLM log: the memory profile of
// vllm/v1/worker/gpu_worker.py and the KV-cache lines of
// vllm/v1/core/kv_cache_utils.py, as vLLM 0.8–0.22 print them. The formats
// were taken from the source's format strings, not from a captured log.
func (r *reader) vllmLine(s string) {
	for _, f := range []struct{ marker, key, name string }{
		{"Model loading took", "weights", "model loading"},
		{"model weights take", "weights", "model weights"},
		{"non_torch_memory takes", "non_torch", "non-torch memory"},
		{"PyTorch activation peak memory takes", "activation_peak", "activation peak"},
		{"the rest of the memory reserved for KV Cache is", "kv", "KV cache"},
		{"Available KV cache memory:", "kv", "KV cache"},
	} {
		if v, res, ok := size(s, f.marker); ok {
			r.reset(f.key)
			r.add(f.key, f.name, v, res)
		}
	}
	if n, ok := atoi(s, "GPU KV cache size:"); ok {
		r.isPool, r.pool.Tokens = true, int64(n)
	}
	if c, ok := atoi(s, "Maximum concurrency for"); ok {
		if x, _, ok := number(s, "tokens per request:"); ok {
			r.isPool, r.pool.ConcurrencyLen, r.pool.MaxConcurrency = true, c, x
		}
	}
	if u, _, ok := number(s, "gpu_memory_utilization ("); ok {
		r.pool.Utilization = u
	}
}
