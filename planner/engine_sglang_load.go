package planner

// This file is what SGLang's load takes beyond the checkpoint's tensors.
// SGLang prints the load as the drop of free memory around it:
// `Load weight end … mem usage` is ModelRunner.load_model's
// before_avail_memory − after_avail_memory, each figure
// get_available_gpu_memory's, which calls torch.cuda.empty_cache() and
// then torch.cuda.mem_get_info() (python/sglang/srt/model_executor/
// model_runner.py, python/sglang/srt/utils.py; 0.4- and 0.5-era copies). So
// the drop is the PyTorch caching allocator's reserved segments that stay in
// use, not the tensors' bytes. DefaultModelLoader.load_model builds the
// model under `with target_device:` (model_loader/loader.py, adapted from
// vLLM 0.6.3.post1's loader), so every parameter is a CUDA allocation made in
// the module's construction order, and the rotary embedding's cos/sin cache
// is computed there too: RotaryEmbedding.__init__ keeps it in float32 on CUDA
// ("cache needs to be in FP32 for numerical stability",
// layers/rotary_embedding.py), one instance shared by every layer (get_rope's
// _ROPE_DICT), its temporaries freed before the next module is made.
//
// The allocator's rules are c10/cuda/CUDACachingAllocator.cpp's: sizes round
// up to 512 bytes; a request of at most 1 MiB is carved from 2 MiB segments
// (the small pool); one under 10 MiB from a 20 MiB segment; a larger one gets
// its own segment rounded up to 2 MiB; a request takes the smallest free
// block that holds it (get_free_block), and the rest of the block is split
// off when it is over 1 MiB (should_split, large pool); empty_cache releases
// only segments that are wholly free. The constants are in
// c10/cuda/CUDACachingAllocator.cpp (kMinBlockSize, kSmallSize,
// kSmallBuffer, kLargeBuffer, kMinLargeAlloc, kRoundLarge) and unchanged
// through the PyTorch 2 releases SGLang 0.4 and 0.5 pin.

// allocator constants (c10/cuda/CUDACachingAllocator.cpp).
const (
	torchMinBlock    = 512
	torchSmallSize   = 1 * MiB
	torchSmallBuffer = 2 * MiB
	torchLargeBuffer = 20 * MiB
	torchMinLarge    = 10 * MiB
	torchRoundLarge  = 2 * MiB
)

// freeBlock is a free block of the large pool: segment seg, offset off
// within it, size bytes; segSize is the segment's size.
type freeBlock struct {
	seg                int32
	off, size, segSize Bytes
}

// torchAlloc simulates the large pool of PyTorch's caching allocator for
// one model's construction. It tracks free blocks only: parameters are
// never freed while the model is built, so only a temporary's block needs
// its place. It is a value on its caller's stack; not safe for concurrent use.
type torchAlloc struct {
	free     [16]freeBlock
	n        int
	nextSeg  int32
	reserved Bytes // bytes of every segment made
	small    Bytes // bytes of requests of at most 1 MiB, the small pool's
	floor    Bytes // a free block under this size is never taken again
}

func roundBlock(n Bytes) Bytes { return Bytes(max(padTo(int64(n), torchMinBlock), torchMinBlock)) }

// segmentSize is get_allocation_size: the segment a request of n bytes
// (more than 1 MiB) gets when no free block holds it.
func segmentSize(n Bytes) Bytes {
	if n < torchMinLarge {
		return torchLargeBuffer
	}
	return Bytes(padTo(int64(n), int64(torchRoundLarge)))
}

// alloc allocates n bytes and returns the block it took.
func (a *torchAlloc) alloc(n Bytes) freeBlock {
	n = roundBlock(n)
	if n <= torchSmallSize {
		a.small += n
		return freeBlock{seg: -1, size: n}
	}
	best := -1
	for i := range a.n {
		if f := &a.free[i]; f.size >= n && (best < 0 || f.size < a.free[best].size) {
			best = i
		}
	}
	var b freeBlock
	if best < 0 {
		s := segmentSize(n)
		b = freeBlock{seg: a.nextSeg, size: s, segSize: s}
		a.nextSeg++
		a.reserved += s
	} else {
		b = a.free[best]
		a.n--
		a.free[best] = a.free[a.n]
	}
	if rest := b.size - n; rest > torchSmallSize {
		a.insert(freeBlock{seg: b.seg, off: b.off + n, size: rest, segSize: b.segSize})
		b.size = n
	}
	return b
}

// release frees a temporary's block, merging it with its free neighbours.
func (a *torchAlloc) release(b freeBlock) {
	if b.seg < 0 {
		a.small -= b.size
		return
	}
	for i := 0; i < a.n; i++ {
		f := a.free[i]
		if f.seg == b.seg && (f.off+f.size == b.off || b.off+b.size == f.off) {
			b.off, b.size = min(b.off, f.off), b.size+f.size
			a.n--
			a.free[i] = a.free[a.n]
			i--
		}
	}
	a.insert(b)
}

// insert adds a free block. A block under the floor is dropped: no
// request left is that small, so it stays reserved and unused. A full list
// drops its smallest block the same way.
func (a *torchAlloc) insert(b freeBlock) {
	if b.size < a.floor {
		a.drop(b)
		return
	}
	if a.n == len(a.free) {
		low := 0
		for i := range a.n {
			if a.free[i].size < a.free[low].size {
				low = i
			}
		}
		if a.free[low].size >= b.size {
			a.drop(b)
			return
		}
		a.drop(a.free[low])
		a.n--
		a.free[low] = a.free[a.n]
	}
	a.free[a.n] = b
	a.n++
}

// drop forgets a free block; a wholly free segment is released now, as
// empty_cache would release it.
func (a *torchAlloc) drop(b freeBlock) {
	if b.off == 0 && b.size == b.segSize {
		a.reserved -= b.segSize
	}
}

// held is what stays reserved after empty_cache: every segment less those
// wholly free, and the small pool's 2 MiB segments.
func (a *torchAlloc) held() Bytes {
	r := a.reserved
	for i := range a.n {
		if f := &a.free[i]; f.off == 0 && f.size == f.segSize {
			r -= f.segSize
		}
	}
	return r + Bytes(padTo(int64(a.small), int64(torchSmallBuffer)))
}

// idle reports whether no free block will be taken again: each is under
// the floor, smaller than every request left for the large pool.
func (a *torchAlloc) idle() bool {
	for i := range a.n {
		if a.free[i].size >= a.floor {
			return false
		}
	}
	return true
}

// sglangLayer is one decoder layer's large parameters in the order SGLang's
// Llama, Qwen2 and Qwen3 classes make them (models/llama.py, qwen2.py,
// qwen3.py: the attention's QKVParallelLinear qkv_proj, then o_proj, then
// the rotary embedding; the MLP's MergedColumnParallelLinear gate_up_proj,
// then down_proj), each one rank's bytes.
type sglangLayer struct{ qkv, o, gateUp, down Bytes }

// sglangLoadArchs are the architectures whose classes were read for
// sglangLayer.
var sglangLoadArchs = [...]string{"llama", "qwen2", "qwen3"}

// sglangLayout returns the layer of m's rank and the layer count; ok is
// false when m is not a 16-bit dense decoder of sglangLoadArchs, whose
// construction order was not read.
func sglangLayout(m *Model) (l sglangLayer, layers int, ok bool) {
	if m.MoE != nil || m.MLA != nil || m.Vision != nil || !sglangLoadArch(m.Arch) {
		return l, 0, false
	}
	for i := range m.Weights.Matrices {
		x := &m.Weights.Matrices[i]
		if x.Dtype != "bf16" && x.Dtype != "f16" {
			return l, 0, false
		}
		b := satMul3(int64(x.N), int64(x.K), 2)
		switch x.Name {
		case "attn_q", "attn_k", "attn_v":
			l.qkv += b
		case "attn_output":
			l.o, layers = b, x.Count
		case "ffn_gate", "ffn_up":
			l.gateUp += b
		case "ffn_down":
			l.down = b
		case "output":
		default:
			return l, 0, false
		}
	}
	return l, layers, layers > 0 && l.qkv > 0 && l.gateUp > 0 && l.down > 0
}

func sglangLoadArch(a string) bool {
	for _, x := range sglangLoadArchs {
		if a == x {
			return true
		}
	}
	return false
}

// sglangLoadRuled reports whether sglangLoadHeld lays out m's load.
func sglangLoadRuled(m *Model) bool {
	_, _, _, ok := sglangLarge(m)
	return ok
}

// sglangLarge returns m's layer, layer count and the bytes of its large
// tensors; ok as sglangLayout's, and false when those exceed the weights.
func sglangLarge(m *Model) (l sglangLayer, layers int, big Bytes, ok bool) {
	l, layers, ok = sglangLayout(m)
	big = weightClass(m, "embedding") + weightClass(m, "output") + Bytes(layers)*(l.qkv+l.o+l.gateUp+l.down)
	return l, layers, big, ok && big <= m.Weights.Bytes
}

// sglangLoadHeld is what the load of m's rank holds after empty_cache,
// from the construction order above; ok as sglangLoadRuled's.
func sglangLoadHeld(m *Model) (Bytes, bool) {
	l, layers, big, ok := sglangLarge(m)
	if !ok {
		return 0, false
	}
	embed, output := weightClass(m, "embedding"), weightClass(m, "output")
	var a torchAlloc
	a.alloc(embed)
	a.layers(m, l, layers, output)
	a.alloc(output)
	a.small += m.Weights.Bytes - big // norms and biases, each under 1 MiB
	return a.held(), true
}

// layers allocates m's n decoder layers l, the rotary embedding's cache
// made on the first, after which the floor is the smallest large request
// left (output is the lm_head's, made after them). A later layer that
// starts and ends idle leaves the next one the same takeable free blocks
// (none), so the layers after it repeat its segments and small-pool bytes
// exactly: those are added for them rather than simulated (a 36-layer
// model is then a few layers' work). Such a layer drops no wholly free
// segment from a full list: one under the floor is 10 MiB or more, so
// every large request is too, and the tails of their own segments are
// under 2 MiB, dropped as they come.
func (a *torchAlloc) layers(m *Model, l sglangLayer, n int, output Bytes) {
	for i := range n {
		idle, reserved, small := a.idle(), a.reserved, a.small
		a.alloc(l.qkv)
		a.alloc(l.o)
		if i == 0 {
			sglangRope(a, m)
			a.floor = smallestLarge(l.qkv, l.o, l.gateUp, l.down, output)
		}
		a.alloc(l.gateUp)
		a.alloc(l.down)
		if rest := Bytes(n - 1 - i); i > 0 && idle && a.idle() {
			a.reserved += rest * (a.reserved - reserved)
			a.small += rest * (a.small - small)
			return
		}
	}
}

// smallestLarge is the smallest of sizes that the large pool serves (over
// 1 MiB), 0 when none is.
func smallestLarge(sizes ...Bytes) Bytes {
	var low Bytes
	for _, s := range sizes {
		if s > torchSmallSize && (low == 0 || s < low) {
			low = s
		}
	}
	return low
}

// sglangRope makes the rotary embedding's float32 cos/sin cache of
// max_position × head_dim entries, with its temporaries (t, freqs, cos
// and sin in _compute_cos_sin_cache) freed after.
func sglangRope(a *torchAlloc, m *Model) {
	pos, dim := Bytes(m.MaxContext), Bytes(0)
	for _, g := range m.Layers {
		if g.Kind == LayerFull || g.Kind == LayerSliding {
			dim = Bytes(g.KeyDim)
			break
		}
	}
	if pos <= 0 || dim <= 0 {
		return
	}
	t, freqs := a.alloc(pos*4), a.alloc(pos*dim/2*4)
	cos, sin := a.alloc(pos*dim/2*4), a.alloc(pos*dim/2*4)
	a.alloc(pos * dim * 4)
	for _, b := range [...]freeBlock{t, freqs, cos, sin} {
		a.release(b)
	}
}

// weightClass is the bytes of m's weight class c, 0 when it has none.
func weightClass(m *Model, c string) Bytes {
	for _, w := range m.Weights.Classes {
		if w.Class == c {
			return w.Bytes
		}
	}
	return 0
}

// sglangLoadBeyond is what `mem usage` counts beyond the tensors of in's
// rank: the allocator's segments less the tensors where the construction
// order is read (sglangLoadHeld), else sglangLoadSlack.
func sglangLoadBeyond(in *Input) Bytes {
	if held, ok := sglangLoadHeld(&in.Model); ok {
		return max(held-in.Model.Weights.Bytes, 0)
	}
	return sglangLoadSlack
}
