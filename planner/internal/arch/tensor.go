// Package arch turns a Hugging Face config.json into a model's tensors and
// per-layer geometry, and sums tensors into the planner's weight classes.
//
// Every architecture template emits the tensors the checkpoint holds, named
// as llama.cpp names them and tagged with the Hugging Face module they come
// from, so that one list serves three readers: the parameter count of a
// config.json, the bytes a quantization_config gives each tensor, and
// llama.cpp's per-tensor type choice for a GGUF quantization. It imports the
// standard library and the planner only.
package arch

import (
	"strconv"
	"strings"
)

// Kind says how a tensor is used, which decides whether it is quantized.
type Kind int

// Tensor kinds.
const (
	KindMatrix Kind = iota // a GEMM weight
	KindEmbed              // the token embedding table
	KindVector             // a norm, bias or other 1-D parameter
	KindOther              // a convolution or other small non-GEMM weight
	KindRouter             // an MoE router
)

// Tensor is one weight tensor: Experts stacked N×K matrices (N outputs, K
// inputs), or a vector of N elements with K = 1.
type Tensor struct {
	Role    string // the llama.cpp name without block and suffix, "attn_q"
	Module  string // Hugging Face module within the block, "self_attn.q_proj"
	Layer   int    // block index, −1 outside the blocks
	Bias    bool   // the module's bias rather than its weight
	Experts int    // experts stacked in the tensor, 0 for none
	N, K    int64
	Kind    Kind
	blocks  *blockNames
}

// blockNames are the prefixes of a model's blocks in both namings.
type blockNames struct{ gguf, hf string }

// Name returns the llama.cpp name, "blk.3.attn_q.weight".
func (t *Tensor) Name() string {
	suffix := ".weight"
	if t.Bias {
		suffix = ".bias"
	}
	if t.Layer < 0 {
		return t.Role + suffix
	}
	return t.blocks.gguf + strconv.Itoa(t.Layer) + "." + t.Role + suffix
}

// HFModule returns the Hugging Face module, "model.layers.3.self_attn.q_proj".
func (t *Tensor) HFModule() string {
	if t.Layer < 0 {
		return t.Module
	}
	return t.blocks.hf + strconv.Itoa(t.Layer) + "." + t.Module
}

// Params reports the tensor's element count.
func (t *Tensor) Params() int64 { return satMul(int64(max(t.Experts, 1)), t.N*t.K) }

// Class reports the weight class the tensor is charged to.
func (t *Tensor) Class() string {
	switch t.Kind {
	case KindEmbed:
		return "embedding"
	case KindRouter:
		return "experts"
	}
	return RoleClass(t.Role)
}

// RoleClass reports the weight class of a llama.cpp tensor role ("attn_q",
// "ffn_down_exps"): the name without its block prefix and suffix.
func RoleClass(r string) string {
	switch {
	case r == "token_embd":
		return "embedding"
	case r == "output":
		return "output"
	case strings.Contains(r, "norm"):
		return "norm"
	case strings.HasSuffix(r, "_exps") || strings.HasPrefix(r, "ffn_gate_inp") || r == "exp_probs_b":
		return "experts"
	case strings.HasPrefix(r, "attn") || strings.HasPrefix(r, "ssm") || strings.HasPrefix(r, "shortconv"):
		return "attention"
	case strings.HasPrefix(r, "ffn"):
		return "ffn"
	}
	return "other"
}

// builder collects the tensors of one model.
type builder struct {
	ts     []Tensor
	layer  int // current block, −1 outside
	blocks *blockNames
}

func newBuilder(gguf, hf string, capacity int) *builder {
	return &builder{ts: make([]Tensor, 0, capacity), layer: -1, blocks: &blockNames{gguf, hf}}
}

func (b *builder) add(role, module string, bias bool, experts int, n, k int, kind Kind) {
	if n <= 0 || k <= 0 {
		return
	}
	b.ts = append(b.ts, Tensor{Role: role, Module: module, Layer: b.layer, Bias: bias,
		Experts: experts, N: int64(n), K: int64(k), Kind: kind, blocks: b.blocks})
}

// mat adds an n×k GEMM weight and, when bias is set, its bias.
func (b *builder) mat(role, module string, n, k int, bias bool) {
	b.add(role, module, false, 0, n, k, KindMatrix)
	if bias {
		b.add(role, module, true, 0, n, 1, KindVector)
	}
}

// exps adds e stacked n×k expert weights and, when bias is set, their biases.
func (b *builder) exps(role, module string, e, n, k int, bias bool) {
	b.add(role, module, false, e, n, k, KindMatrix)
	if bias {
		b.add(role, module, true, e, n, 1, KindVector)
	}
}

// vec adds a 1-D parameter of n elements.
func (b *builder) vec(role, module string, n int) { b.add(role, module, false, 0, n, 1, KindVector) }

// layerNorm adds a LayerNorm's weight and bias of n elements each.
func (b *builder) layerNorm(role, module string, n int) {
	b.add(role, module, false, 0, n, 1, KindVector)
	b.add(role, module, true, 0, n, 1, KindVector)
}
