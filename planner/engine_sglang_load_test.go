package planner

import "testing"

// TestTorchAlloc holds the allocator's segment rules
// (c10/cuda/CUDACachingAllocator.cpp): what stays reserved after a
// sequence of requests, with the temporaries freed and empty_cache run.
func TestTorchAlloc(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []Bytes // requests kept
		temps []Bytes // requests freed at the end
		want  Bytes
	}{
		{"small requests share a 2 MiB segment", []Bytes{100, 600 * KiB}, nil, 2 * MiB},
		{"10 MiB and over round to 2 MiB", []Bytes{12*MiB + 1}, nil, 14 * MiB},
		{"under 10 MiB packs into 20 MiB", []Bytes{8 * MiB, 4 * MiB, 6 * MiB}, nil, 20 * MiB},
		{"best fit leaves a 2 MiB tail", []Bytes{8 * MiB, 4 * MiB, 12 * MiB, 6 * MiB, 8 * MiB}, nil, 20*MiB + 12*MiB + 20*MiB},
		{"a wholly free segment is released", []Bytes{32 * MiB}, []Bytes{64 * MiB}, 32 * MiB},
	} {
		var a torchAlloc
		var tmp []freeBlock
		for _, s := range c.temps {
			tmp = append(tmp, a.alloc(s))
		}
		for _, s := range c.sizes {
			a.alloc(s)
		}
		for _, b := range tmp {
			a.release(b)
		}
		if got := a.held(); got != c.want {
			t.Errorf("%s: held = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTorchAllocReuse: a request takes a freed temporary's segment, and
// its tail stays reserved.
func TestTorchAllocReuse(t *testing.T) {
	var a torchAlloc
	tmp := a.alloc(64 * MiB)
	a.release(tmp)
	a.alloc(48 * MiB)
	if got := a.held(); got != 64*MiB {
		t.Errorf("held = %v, want 64 MiB (48 MiB in the freed 64 MiB segment)", got)
	}
}

// TestSGLangLoadBeyond holds the rule to the layouts it was read for and
// the fallback to the others.
func TestSGLangLoadBeyond(t *testing.T) {
	for _, c := range []struct {
		id   string
		rule bool
	}{
		{"qwen3-0.6b-bf16", true},
		{"qwen2.5-0.5b-instruct-bf16", true},
		{"llama-3.1-8b-instruct-bf16", true},
		{"llama-3.1-8b-instruct-awq-int4", false}, // quantized: not read
		{"qwen3-30b-a3b-q4_k_m", false},           // MoE
	} {
		in := Input{Model: catalogModel(t, c.id)}
		_, ok := sglangLoadHeld(&in.Model)
		if ok != c.rule {
			t.Errorf("%s: rule applies = %v, want %v", c.id, ok, c.rule)
		}
		got := sglangLoadBeyond(&in)
		if !ok && got != sglangLoadSlack {
			t.Errorf("%s: load beyond = %v, want the fallback %v", c.id, got, sglangLoadSlack)
		}
		if ok && (got <= 0 || got > 200*MiB) {
			t.Errorf("%s: load beyond = %v, want a few segments' rounding and the rotary cache", c.id, got)
		}
	}
}

func BenchmarkSGLangLoadHeld(b *testing.B) {
	m := catalogModel(b, "qwen3-8b-bf16")
	for b.Loop() {
		sglangLoadHeld(&m)
	}
}
