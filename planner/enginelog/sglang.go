package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// sglangLog is how SGLang's start-up log is read. SGLang prints no version
// line of its own.
var sglangLog = logReader{engine: planner.EngineSGLang,
	markers: []string{"B", "KV"},
	claims: func(s string) bool {
		return strings.Contains(s, "KV Cache is allocated") || strings.Contains(s, "Load weight end") || strings.Contains(s, "sglang")
	},
	read:     (*reader).sglangLine,
	input:    poolInput,
	figures:  []string{"weights", "kv"},
	settings: settingsPool,
}

// sglangLine reads SGLang's model-runner lines (model_runner.py): the
// weights' memory use and the allocated KV cache (mem_cache/memory_pool.py,
// MHATokenToKVPool.__init__).
func (r *reader) sglangLine(s string) {
	if v, res, ok := sglangSize(s, "mem usage="); ok && strings.Contains(s, "Load weight end") {
		r.reset("weights")
		r.add("weights", "model weights", v, res)
	}
	if n, ok := atoi(s, "#tokens:"); ok && strings.Contains(s, "KV Cache is allocated") {
		r.isPool, r.pool.Tokens = true, int64(n)
		k, kr, ok1 := sglangSize(s, "K size:")
		v, vr, ok2 := sglangSize(s, "V size:")
		if ok1 && ok2 {
			r.reset("kv")
			r.add("kv", "KV cache (K + V)", k+v, kr+vr)
		}
	}
}

// sglangSize reads a size as SGLang prints it: its "GB" is GiB, bytes
// divided by 1024³ (memory_pool.py and model_runner.py, GB = 1024 * 1024 *
// 1024; the K and V sizes of vllm-project/vllm issue #21348's log bear it
// out against the model's shape).
func sglangSize(s, marker string) (planner.Bytes, planner.Bytes, bool) {
	v, res, ok := size(s, marker)
	if i := strings.Index(s, marker); ok && i >= 0 {
		if _, rest, _ := number(s[i:], marker); strings.HasPrefix(strings.TrimSpace(rest), "GB") {
			const gib = float64(planner.GiB) / 1e9
			v, res = planner.Bytes(float64(v)*gib), planner.Bytes(float64(res)*gib)
		}
	}
	return v, res, ok
}
