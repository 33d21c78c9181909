package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// llamaLine reads one line of a llama.cpp log (b12072: src/llama-context.cpp,
// src/llama-kv-cache.cpp, src/llama-model.cpp load_tensors).
func (r *reader) llamaLine(s string) {
	st := &r.llama
	switch {
	case strings.Contains(s, "llama_context: constructing llama_context"):
		r.reset("kv", "compute_buffer")
	case strings.Contains(s, "loaded meta data") && strings.Contains(s, " from "):
		f := s[strings.LastIndex(s, " from ")+6:]
		if i := strings.Index(f, " (version"); i >= 0 {
			f = f[:i]
		}
		st.Model = f
	}
	setInt(&st.NSeqMax, s, "llama_context: n_seq_max     =")
	setInt(&st.NCtx, s, "llama_context: n_ctx         =")
	setInt(&st.NCtxSeq, s, "llama_context: n_ctx_seq     =")
	setInt(&st.NUbatch, s, "llama_context: n_ubatch      =")
	if _, v, ok := strings.Cut(s, "llama_context: flash_attn    = "); ok {
		st.FlashAttn = strings.HasPrefix(v, "enabled") || strings.HasPrefix(v, "auto")
	}
	if _, v, ok := strings.Cut(s, "llama_context: kv_unified    = "); ok {
		st.Unified = strings.HasPrefix(v, "true")
	}
	if strings.Contains(s, "using full-size SWA cache") {
		st.SWAFull = true
	}
	if i := strings.Index(s, "offloaded "); i >= 0 && strings.Contains(s, "layers to GPU") {
		n, _ := atoi(s, "offloaded ")
		m, _ := atoi(s[i:], "/")
		st.GPULayers, st.Layers = n, m
	}
	if strings.Contains(s, "llama_kv_cache: size =") {
		st.TypeK, st.TypeV = between(s, "K (", ")"), between(s, "V (", ")")
	}
	r.llamaBuffer(s)
}

// llamaBuffer reads a device buffer line; host buffers (CPU, CPU_Mapped,
// CUDA_Host) are not device memory.
func (r *reader) llamaBuffer(s string) {
	for _, b := range []struct{ marker, key, name string }{
		{" model buffer size =", "weights", "model buffer"},
		{" KV buffer size =", "kv", "KV buffer"},
		{" compute buffer size =", "compute_buffer", "compute buffer"},
	} {
		i := strings.Index(s, b.marker)
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[:i])
		if len(fields) == 0 {
			return
		}
		dev := fields[len(fields)-1]
		if dev == "CPU" || strings.HasSuffix(dev, "_Host") || strings.HasPrefix(dev, "CPU_") {
			return
		}
		if v, res, ok := size(s, b.marker); ok {
			r.add(b.key, dev+" "+b.name, v, res)
		}
	}
}

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
			r.engine = "vllm"
			r.reset(f.key)
			r.add(f.key, f.name, v, res)
		}
	}
	if n, ok := atoi(s, "GPU KV cache size:"); ok {
		r.engine, r.isPool, r.pool.Tokens = "vllm", true, int64(n)
	}
	if c, ok := atoi(s, "Maximum concurrency for"); ok {
		if x, _, ok := number(s, "tokens per request:"); ok {
			r.engine, r.isPool, r.pool.ConcurrencyLen, r.pool.MaxConcurrency = "vllm", true, c, x
		}
	}
	if u, _, ok := number(s, "gpu_memory_utilization ("); ok {
		r.pool.Utilization = u
	}
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

func setInt(dst *int, s, marker string) {
	if strings.Contains(s, marker) {
		if n, ok := atoi(s, marker); ok {
			*dst = n
		}
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	rest := s[i+len(a):]
	if j := strings.Index(rest, b); j >= 0 {
		return rest[:j]
	}
	return ""
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
