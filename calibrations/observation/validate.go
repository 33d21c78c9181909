package observation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// This file holds Check's rules: every field in range and of the form the
// schema states, and nothing that could name a machine or a person — the
// free-text fields (the engine version, the GPU name, the catalog id) take
// letters, digits and a few separators only, so neither a path nor markup
// can be stored.

// The bounds of the numbers an observation holds.
const (
	maxTotalMiB = 4 << 20 // 4 TiB
	maxCtx      = 1 << 24
	maxSeqs     = 1 << 16
	maxTokens   = 1 << 40
	maxFigures  = 8
)

// figureKeys are the keys of the figures an observation of engine e
// reports: its log's (planner/enginelog) and device_used.
func figureKeys(e planner.EngineName) ([]string, bool) {
	keys, ok := enginelog.FigureKeys(e)
	return append(slices.Clip(keys), DeviceUsed), ok
}

func validate(o *Observation) []community.Reason {
	var rs []community.Reason
	add := func(field, format string, args ...any) {
		rs = append(rs, community.Reason{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch want := schemaOf(o); {
	case o.Schema == want:
	case o.Schema == Schema || o.Schema == SchemaSettings:
		add("schema", "is %q, and the document %s settings: want %q (the tag follows from what it holds)", o.Schema, holds(o.Settings != nil), want)
	default:
		add("schema", "is %q; want %q, or %q for a document with settings", o.Schema, Schema, SchemaSettings)
	}
	keys, ok := figureKeys(o.Engine)
	if !ok {
		add("engine", "is %q; want one of %v", o.Engine, planner.Engines[1:])
	}
	if !token(o.EngineVersion, 64, "._+-()") {
		add("engine_version", "want 1–64 letters, digits and . _ + - ( ) (a release such as b12072 or 0.11.0)")
	}
	if !day(o.Day) {
		add("day", "is %q; want a date YYYY-MM-DD from 2023 on", o.Day)
	}
	if !token(o.GPU.Name, 64, " -_.") {
		add("gpu.name", "want the device name CUDA reports: 1–64 letters, digits, spaces and - _ .")
	}
	if o.GPU.TotalMiB < 1024 || o.GPU.TotalMiB > maxTotalMiB {
		add("gpu.total_mib", "is %d; want 1024 to %d", o.GPU.TotalMiB, maxTotalMiB)
	}
	if c := o.Model.Catalog; c != "" && (!token(c, 100, "._-") || strings.ToLower(c) != c) {
		add("model.catalog", "want a catalog id: lowercase letters, digits and . _ -")
	}
	rs = append(rs, settings(o)...)
	return append(rs, figures(o, keys)...)
}

// settings checks the engine's settings block.
func settings(o *Observation) []community.Reason {
	var rs []community.Reason
	add := func(field, format string, args ...any) {
		rs = append(rs, community.Reason{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if enginelog.StatesContext(o.Engine) {
		if o.Pool != nil {
			add("pool", "is a KV pool's; %s states its context in llama_cpp", o.Engine)
		}
		if o.Settings != nil {
			add("settings", "are a KV pool engine's; %s states its context in llama_cpp", o.Engine)
		}
		s := o.LlamaCpp
		if s == nil {
			add("llama_cpp", "missing: a %s observation states its context settings", o.Engine)
			return rs
		}
		rangeOf(add, "llama_cpp.n_ctx", int64(s.NCtx), 1, maxCtx)
		rangeOf(add, "llama_cpp.n_seq_max", int64(s.NSeqMax), 1, maxSeqs)
		rangeOf(add, "llama_cpp.n_ubatch", int64(s.NUbatch), 1, maxCtx)
		for _, t := range []struct{ field, v string }{{"llama_cpp.type_k", s.TypeK}, {"llama_cpp.type_v", s.TypeV}} {
			if !slices.Contains(o.Engine.KVDtypes(), planner.KVDtype(t.v)) {
				add(t.field, "is %q; the profile plans %v", t.v, o.Engine.KVDtypes())
			}
		}
		rangeOf(add, "llama_cpp.layers", int64(s.Layers), 0, 1<<12)
		rangeOf(add, "llama_cpp.gpu_layers", int64(s.GPULayers), 0, int64(s.Layers))
		return rs
	}
	if o.LlamaCpp != nil {
		add("llama_cpp", "is llama.cpp's; a %s observation has none", o.Engine)
	}
	rs = append(rs, launch(o)...)
	if p := o.Pool; p != nil {
		rangeOf(add, "pool.tokens", p.Tokens, 0, maxTokens)
		rangeOf(add, "pool.concurrency_len", int64(p.ConcurrencyLen), 0, maxCtx)
		if !(p.MaxConcurrency >= 0 && p.MaxConcurrency <= 1e7) {
			add("pool.max_concurrency", "want 0 to 10,000,000")
		}
		if !(p.Utilization >= 0 && p.Utilization <= 1) {
			add("pool.gpu_memory_utilization", "want a fraction, 0 to 1")
		}
	}
	return rs
}

// schemaOf is the tag of o's canonical form: SchemaSettings when it
// carries settings, Schema when it does not.
func schemaOf(o *Observation) string {
	if o.Settings != nil {
		return SchemaSettings
	}
	return Schema
}

func holds(b bool) string {
	if b {
		return "carries"
	}
	return "carries no"
}

// The bounds of the launch settings: check's --tensor-parallel and
// --pipeline-parallel take at most 1,024.
const maxParallel = 1 << 10

// launch checks the settings block of a pool engine.
func launch(o *Observation) []community.Reason {
	s := o.Settings
	if s == nil {
		return nil
	}
	var rs []community.Reason
	add := func(field, format string, args ...any) {
		rs = append(rs, community.Reason{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if *s == (Settings{}) {
		add("settings", "empty: a document without settings leaves them out (schema %s)", Schema)
	}
	rangeOf(add, "settings.tensor_parallel", int64(s.TensorParallel), 0, maxParallel)
	rangeOf(add, "settings.pipeline_parallel", int64(s.PipelineParallel), 0, maxParallel)
	rangeOf(add, "settings.max_len", int64(s.MaxLen), 0, maxCtx)
	rangeOf(add, "settings.max_num_seqs", int64(s.MaxNumSeqs), 0, maxSeqs)
	rangeOf(add, "settings.max_num_batched_tokens", int64(s.MaxBatchedTokens), 0, maxCtx)
	if !(s.MemFractionStatic >= 0 && s.MemFractionStatic <= 1) {
		add("settings.mem_fraction_static", "want a fraction, 0 to 1")
	}
	if s.KVDtype != "" && !token(s.KVDtype, 32, "._-") {
		add("settings.kv_cache_dtype", "want the dtype as the engine prints it: 1–32 letters, digits and . _ -")
	}
	return rs
}

// figures checks the measured charges: known keys, each once, every size
// within the device.
func figures(o *Observation, keys []string) []community.Reason {
	var rs []community.Reason
	if len(o.Figures) == 0 && o.Pool == nil {
		return []community.Reason{{Field: "figures", Msg: "empty: an observation reports at least one charge"}}
	}
	if len(o.Figures) > maxFigures {
		return []community.Reason{{Field: "figures", Msg: fmt.Sprintf("holds %d figures; at most %d", len(o.Figures), maxFigures)}}
	}
	total := o.GPU.TotalMiB * int64(planner.MiB)
	seen := map[string]bool{}
	for i, f := range o.Figures {
		field := "figures[" + strconv.Itoa(i) + "]"
		switch {
		case !slices.Contains(keys, f.Key):
			rs = append(rs, community.Reason{Field: field + ".key", Msg: fmt.Sprintf("is %q; a %s observation reports %v", f.Key, o.Engine, keys)})
		case seen[f.Key]:
			rs = append(rs, community.Reason{Field: field + ".key", Msg: fmt.Sprintf("%q appears twice", f.Key)})
		case f.Bytes < 0 || f.Bytes > total:
			rs = append(rs, community.Reason{Field: field + ".bytes", Msg: fmt.Sprintf("is %d; want 0 to the device's %d", f.Bytes, total)})
		case f.Resolution < 0 || f.Resolution > int64(planner.GiB):
			rs = append(rs, community.Reason{Field: field + ".resolution_bytes", Msg: fmt.Sprintf("is %d; want 0 to 1 GiB", f.Resolution)})
		}
		seen[f.Key] = true
	}
	return rs
}

func rangeOf(add func(string, string, ...any), field string, v, lo, hi int64) {
	if v < lo || v > hi {
		add(field, "is %d; want %d to %d", v, lo, hi)
	}
}

// token reports whether s is 1 to n characters, each an ASCII letter or
// digit or one of extra, starting with a letter or digit.
func token(s string, n int, extra string) bool {
	if s == "" || len(s) > n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune(extra, rune(c))) {
			return false
		}
	}
	return true
}

// day reports whether s is a real date YYYY-MM-DD between 2023 and 2099.
func day(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, e1 := strconv.Atoi(s[:4])
	m, e2 := strconv.Atoi(s[5:7])
	d, e3 := strconv.Atoi(s[8:])
	if e1 != nil || e2 != nil || e3 != nil || y < 2023 || y > 2099 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days && strings.IndexFunc(s, func(r rune) bool { return r != '-' && (r < '0' || r > '9') }) < 0
}

// canonicalGPU returns the name the project's table knows the card by, or
// the name with its spaces collapsed.
func canonicalGPU(name string) string {
	if g, ok := community.Known(name); ok {
		return g.Name
	}
	return strings.Join(strings.Fields(name), " ")
}
