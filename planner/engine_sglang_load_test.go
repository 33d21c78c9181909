package planner

import (
	"os"
	"slices"
	"strings"
	"testing"
)

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

// simulatedLayers is torchAlloc.layers without its shortcut: every layer
// simulated.
func simulatedLayers(a *torchAlloc, m *Model, l sglangLayer, n int, output Bytes) {
	for i := range n {
		a.alloc(l.qkv)
		a.alloc(l.o)
		if i == 0 {
			sglangRope(a, m)
			a.floor = smallestLarge(l.qkv, l.o, l.gateUp, l.down, output)
		}
		a.alloc(l.gateUp)
		a.alloc(l.down)
	}
}

// TestTorchAllocLayers holds the layers' shortcut to simulating every
// layer: the same bytes held for every catalog model the rule reads, its
// rotary cache on the first layer, and for layers of many sizes (the large
// pool's 20 MiB segments, whose tails later requests take, and 2
// MiB-rounded ones) after freed temporaries that later requests take, that
// none takes, or that fill the free list.
func TestTorchAllocLayers(t *testing.T) {
	entries, err := os.ReadDir("catalog/models")
	if err != nil {
		t.Fatal(err)
	}
	models := 0
	for _, e := range entries {
		m := catalogModel(t, strings.TrimSuffix(e.Name(), ".json"))
		l, layers, ok := sglangLayout(&m)
		if !ok {
			continue
		}
		models++
		embed, output := weightClass(&m, "embedding"), weightClass(&m, "output")
		var fast, slow torchAlloc
		fast.alloc(embed)
		slow.alloc(embed)
		fast.layers(&m, l, layers, output)
		simulatedLayers(&slow, &m, l, layers, output)
		if fast.held() != slow.held() {
			t.Errorf("%s: layers held %v, want %v as simulated", m.ID, fast.held(), slow.held())
		}
	}
	if models < 5 {
		t.Errorf("%d catalog models checked, want every one the rule reads", models)
	}
	// A freed 300 MiB segment served by the first layer and the second's
	// first request: the second layer ends with no free block to take but
	// did not start so.
	cases := []sglangLayer{{48 * MiB, 48 * MiB, 48 * MiB, 97 * MiB}}
	sizes := []Bytes{512 * KiB, 1*MiB + 1, 3 * MiB, 6 * MiB, 9*MiB + 7, 10 * MiB, 13*MiB + 512, 48 * MiB, 97 * MiB}
	for i, s := range sizes {
		for j := range 4 {
			cases = append(cases, sglangLayer{s, sizes[(i+j)%len(sizes)], sizes[(i+2*j+1)%len(sizes)], sizes[(i+3*j+2)%len(sizes)]})
		}
	}
	for _, l := range cases {
		for _, temps := range [][]Bytes{nil, {5 * MiB}, {150 * MiB}, {300 * MiB}, slices.Repeat([]Bytes{10 * MiB}, 17)} {
			var fast, slow torchAlloc
			for _, a := range []*torchAlloc{&fast, &slow} {
				var tmp []freeBlock
				for _, s := range temps {
					tmp = append(tmp, a.alloc(s))
				}
				for _, b := range tmp {
					a.release(b)
				}
			}
			fast.layers(&Model{}, l, 40, 0)
			simulatedLayers(&slow, &Model{}, l, 40, 0)
			if fast.held() != slow.held() {
				t.Errorf("layers(%+v, 40) after temporaries %v: held %v, want %v as simulated", l, temps, fast.held(), slow.held())
			}
		}
	}
}
