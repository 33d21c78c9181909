package planner

import (
	"slices"
	"testing"
)

// TestTensorCut checks the split of one segment against
// llama_meta_device_get_split_state's arithmetic worked by hand.
func TestTensorCut(t *testing.T) {
	for _, c := range []struct {
		s    tsSplit
		ne   int64
		g    int64
		want []int64
	}{
		// 4 KV heads of 128 over 3 devices, no -ts: cuts 512/3 = 170 -> 128, 1024/3 = 341 -> 256.
		{tsSplit{n: 3}, 512, 128, []int64{128, 128, 256}},
		// The same, rotated by one layer: the remainder moves to device 0.
		{tsSplit{n: 3, rot: 1}, 512, 128, []int64{256, 128, 128}},
		// -ts 3,1 over 32 query heads of 128 in KV groups of 4 (g_q 512): 4096 × 3/4 = 3072.
		{tsSplit{ts: []float64{3, 1}, n: 2}, 4096, 512, []int64{3072, 1024}},
		// Rotated: the shares rotate with the devices, so device 0 still gets 3/4.
		{tsSplit{ts: []float64{3, 1}, n: 2, rot: 1}, 4096, 512, []int64{3072, 1024}},
		// 2 KV heads over 4 devices: whole heads, two devices get none.
		{tsSplit{n: 4}, 256, 128, []int64{0, 128, 0, 128}},
		// A granularity above the segment: the last device takes it all.
		{tsSplit{n: 2}, 64, 256, []int64{0, 64}},
		// The output matrix: vocabulary rows at granularity 1, -ts 1,2.
		{tsSplit{ts: []float64{1, 2}, n: 2}, 128256, 1, []int64{42752, 85504}},
	} {
		got := make([]int64, c.s.n)
		c.s.cut(got, c.ne, c.g, 1)
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v.cut(%d, g %d) = %v, want %v", c.s, c.ne, c.g, got, c.want)
		}
	}
}

// TestTensorGranularity checks get_split_granularity's attention rule:
// the block of attn_output's type doubled while under 128 and under
// n_gqa × head_dim / N, then lcm with n_gqa × head_dim.
func TestTensorGranularity(t *testing.T) {
	for _, c := range []struct {
		heads, kv, dim int
		dtype          string
		n              int
		gq, gkv        int64
	}{
		{32, 8, 128, "q4_k", 2, 512, 128}, // Llama-3-8B: a KV group of 4 heads
		{32, 8, 128, "bf16", 2, 512, 128}, // block 1 doubles to 128, lcm(512, 128)
		{32, 32, 64, "q4_k", 2, 256, 256}, // no GQA, head 64: a Q4_K block is 4 heads
		{32, 32, 80, "f16", 4, 160, 160},  // head 80: 1 doubles while 4 × b < 80, to 32; lcm(80, 32)
		{16, 8, 64, "q8_0", 8, 128, 64},   // block 32 stays: 32 × 8 is not under 128
	} {
		m := &Model{QueryHeads: c.heads, Layers: []LayerGroup{{Count: 1, Layer: Layer{Kind: LayerFull, KVHeads: c.kv, KeyDim: c.dim, ValueDim: c.dim}}},
			Weights: Weights{Matrices: []Matrix{{Name: "attn_output", N: 1, K: 1, Count: 1, Dtype: c.dtype}}}}
		g := newTensorGeometry(m, &Parallel{Tensor: c.n})
		if gq, gkv := g.attnGranularity(0); gq != c.gq || gkv != c.gkv {
			t.Errorf("%d/%d heads of %d, %s, %d GPUs: granularity %d, %d; want %d, %d", c.heads, c.kv, c.dim, c.dtype, c.n, gq, gkv, c.gq, c.gkv)
		}
	}
}

// FuzzTensorCut: any segment, granularity and shares split into slices
// that are never negative, add up to the segment, and are whole granules
// on every device but the one that takes the remainder.
func FuzzTensorCut(f *testing.F) {
	f.Add(int64(512), int64(128), uint8(3), uint8(1), uint64(0))
	f.Add(int64(4096), int64(512), uint8(2), uint8(0), uint64(0x0301))
	f.Add(int64(1<<40), int64(1), uint8(16), uint8(7), uint64(0xffff_ffff_ffff_ffff))
	f.Fuzz(func(t *testing.T, ne, g int64, n, rot uint8, shares uint64) {
		ne, g = max(min(ne, 1<<40), 0), max(min(g, 1<<20), 1)
		s := tsSplit{n: 1 + int(n)%llamaMaxDevices, rot: int(rot)}
		s.rot %= s.n
		if shares != 0 {
			for i := range s.n {
				s.ts = append(s.ts, float64(1+(shares>>(4*i))%16))
			}
		}
		out := make([]int64, s.n)
		s.cut(out, ne, g, 1)
		var sum int64
		last := (s.n - 1 + s.rot) % s.n
		for d, x := range out {
			if x < 0 || (d != last && x%g != 0) {
				t.Fatalf("%+v.cut(%d, g %d) = %v: device %d", s, ne, g, out, d)
			}
			sum += x
		}
		if sum != ne {
			t.Fatalf("%+v.cut(%d, g %d) = %v, summing to %d", s, ne, g, out, sum)
		}
	})
}
