package gguf

// This file reads GGUF metadata values without trusting their types:
// gguf-parser-go's typed getters panic on a value of another type.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	parser "github.com/gpustack/gguf-parser-go"
)

// meta is a file's metadata by key, read for architecture arch.
type meta struct {
	kv   map[string]any
	arch string
}

func newMeta(gf *parser.GGUFFile) *meta {
	m := &meta{kv: make(map[string]any, len(gf.Header.MetadataKV))}
	for _, kv := range gf.Header.MetadataKV {
		if _, dup := m.kv[kv.Key]; !dup {
			m.kv[kv.Key] = kv.Value
		}
	}
	m.arch, _ = m.kv["general.architecture"].(string)
	return m
}

// key expands "%s" to the architecture.
func (m *meta) key(k string) string { return strings.Replace(k, "%s", m.arch, 1) }

// limits bound metadata values by key suffix to what the planner accepts.
var limits = map[string]int{
	".block_count": 1 << 12, ".embedding_length": 1 << 20, ".vocab_size": 1 << 24, ".context_length": 1 << 27,
	".feed_forward_length": 1 << 27, ".head_count": 1 << 16, ".head_count_kv": 1 << 16, ".key_length": 1 << 20,
	".value_length": 1 << 20, ".key_length_mla": 1 << 20, ".value_length_mla": 1 << 20, ".sliding_window": 1 << 27,
	".expert_count": 1 << 16, ".expert_used_count": 1 << 16, ".expert_feed_forward_length": 1 << 20,
	".expert_shared_count": 1 << 10, ".kv_lora_rank": 1 << 16, ".dimension_count": 1 << 16,
	".conv_kernel": 1 << 10, ".inner_size": 1 << 20, ".state_size": 1 << 16, ".time_step_rank": 1 << 16,
	".group_count": 1 << 12, ".image_size": 1 << 16, ".patch_size": 1 << 16,
}

// check bounds value v of key.
func check(key string, v int) error {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		if limit, ok := limits[key[i:]]; ok && v > limit {
			return fmt.Errorf("GGUF metadata %s: %d is more than %d", key, v, limit)
		}
	}
	return nil
}

// num converts a numeric metadata value to an int in [0, 2^31).
func num(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case uint8, uint16, uint32, uint64, int8, int16, int32, int64:
		f = float64(toInt64(x))
	case float32:
		f = float64(x)
	case float64:
		f = x
	case bool:
		return map[bool]int{true: 1}[x], true
	default:
		return 0, false
	}
	if f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(min(x, math.MaxInt64))
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	}
	return v.(int64)
}

// int returns the scalar at key, def when absent, or an error naming the key.
func (m *meta) int(k string, def int) (int, error) {
	key := m.key(k)
	v, ok := m.kv[key]
	if !ok {
		return def, nil
	}
	if a, isArr := arrayValues(v); isArr {
		return maxOf(key, a)
	}
	n, ok := num(v)
	if !ok {
		return 0, fmt.Errorf("GGUF metadata %s: %v is not a count", key, v)
	}
	return n, check(key, n)
}

// arrayValues returns the numbers of an array value: a per-layer array's
// (layerArray), none for an array the decoder skipped; isArr is false for
// a scalar.
func arrayValues(v any) (vals []float64, isArr bool) {
	switch a := v.(type) {
	case layerArray:
		return a.Values, true
	case parser.GGUFMetadataKVArrayValue:
		return nil, true
	}
	return nil, false
}

func maxOf(key string, a []float64) (int, error) {
	best := 0
	for _, x := range a {
		n, ok := num(x)
		if !ok {
			return 0, fmt.Errorf("GGUF metadata %s: %v is not a count", key, x)
		}
		best = max(best, n)
	}
	return best, check(key, best)
}

// need returns the scalar at key and fails when it is absent.
func (m *meta) need(k string) (int, error) {
	if _, ok := m.kv[m.key(k)]; !ok {
		return 0, fmt.Errorf("GGUF metadata %s: missing", m.key(k))
	}
	return m.int(k, 0)
}

// perLayer returns the per-layer values at key: an array of n values, or a
// scalar repeated; def when absent.
func (m *meta) perLayer(k string, n, def int) ([]int, error) {
	key := m.key(k)
	out := make([]int, n)
	a, isArr := arrayValues(m.kv[key])
	if !isArr {
		v, err := m.int(k, def)
		for i := range out {
			out[i] = v
		}
		return out, err
	}
	if len(a) != n {
		return nil, fmt.Errorf("GGUF metadata %s: %d values for %d layers", key, len(a), n)
	}
	for i, x := range a {
		v, ok := num(x)
		if !ok {
			return nil, fmt.Errorf("GGUF metadata %s[%d]: %v is not a count", key, i, x)
		}
		out[i] = v
	}
	return out, check(key, slices.Max(append(out, 0)))
}

func (m *meta) has(k string) bool { _, ok := m.kv[m.key(k)]; return ok }
