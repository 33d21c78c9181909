package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// llamaCppLog is how llama-server's start-up log is read (b12072).
var llamaCppLog = logReader{engine: planner.EngineLlamaCpp,
	markers: []string{"llama_", "load_tensors:"},
	claims: func(s string) bool {
		return strings.Contains(s, "llama_context:") || strings.Contains(s, "llama_kv_cache") ||
			strings.Contains(s, "load_tensors:") || strings.Contains(s, "sched_reserve:") || strings.Contains(s, "llama_model_loader:") ||
			strings.Contains(s, ", compute capability ") && strings.Contains(s, ", VRAM: ") // ggml_cuda_init's devices
	},
	read:  (*reader).llamaLine,
	facts: &llamaCppFacts,
}

var llamaCppFacts = logFacts{engine: planner.EngineLlamaCpp,
	figures: []string{"weights", "kv", "compute_buffer"}, exact: []string{"weights", "kv"},
	settings: settingsLlamaCpp,
	versions: []versionLine{{marker: "build: ", end: " (", prefix: "b"}}, // common/common.cpp, common_init
}

// llamaCppInput is the configuration of llama.cpp's context settings.
func llamaCppInput(l *Log, in *planner.Input) error {
	s := l.LlamaCpp
	if s == nil || s.NCtx == 0 || s.NSeqMax == 0 {
		return printf.Errorf("the log states no context (llama_context: n_ctx, n_seq_max)")
	}
	in.Limits = planner.Limits{MaxBatch: s.NSeqMax, MaxSeqLen: max(s.NCtx/s.NSeqMax, 1), MaxPrefillTokens: s.NUbatch,
		KVDtype: planner.KVDtype(s.TypeK)}
	o := &in.Serving.LlamaCpp
	o.Unified, o.SWAFull = s.Unified, s.SWAFull
	if s.TypeV != "" && s.TypeV != s.TypeK {
		o.VDtype = planner.KVDtype(s.TypeV)
	}
	if !s.FlashAttn {
		o.FlashAttn = planner.FlashAttnOff
	}
	if s.Layers > 0 && s.GPULayers < s.Layers {
		o.GPULayers = s.GPULayers
	}
	return nil
}

// llamaLine reads one line of a llama.cpp log (b12072: src/llama-context.cpp,
// src/llama-kv-cache.cpp, src/llama-model.cpp load_tensors).
func (r *reader) llamaLine(s string) bool {
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
	// ggml/src/ggml-cuda/ggml-cuda.cpp, ggml_cuda_init: one line a device.
	if _, name, ok := strings.Cut(between(s, "Device ", ", compute capability"), ": "); ok && st.GPU == "" {
		if n, ok := atoi(s, ", VRAM: "); ok {
			st.GPU, st.GPUTotal = name, planner.Bytes(n)*planner.MiB
		}
	}
	return r.llamaBuffer(s) || hasAny(s, llamaSettingMarkers)
}

// llamaSettingMarkers are the lines of llama.cpp's settings llamaLine reads.
var llamaSettingMarkers = []string{"constructing llama_context", "loaded meta data", "llama_context: n_", "llama_context: flash_attn",
	"llama_context: kv_unified", "full-size SWA cache", "layers to GPU", "llama_kv_cache: size =", ", VRAM: "}

func hasAny(s string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// llamaBuffer reads a device buffer line; host buffers (CPU, CPU_Mapped,
// CUDA_Host) are not device memory, and are skipped as read.
func (r *reader) llamaBuffer(s string) bool {
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
			return false
		}
		dev := fields[len(fields)-1]
		if dev == "CPU" || strings.HasSuffix(dev, "_Host") || strings.HasPrefix(dev, "CPU_") {
			return true
		}
		if v, res, ok := size(s, b.marker); ok {
			r.add(b.key, dev+" "+b.name, v, res)
			return true
		}
	}
	return strings.Contains(s, " buffer size =") && hostBuffer(s)
}

// hostBuffer reports whether a buffer line is of a host buffer.
func hostBuffer(s string) bool {
	f := strings.Fields(s[:strings.Index(s, " buffer size =")])
	for _, w := range f {
		if w == "CPU" || strings.HasSuffix(w, "_Host") || strings.HasPrefix(w, "CPU_") {
			return true
		}
	}
	return false
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
