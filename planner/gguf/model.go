package gguf

// This file turns a GGUFFile into the planner's model: per-layer geometry
// from the architecture's metadata, weights from the tensor infos.

import (
	"fmt"
	"slices"
	"strings"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// swaPatterns is llama.cpp's set_swa_pattern(n) per architecture: layer i
// slides when i mod n < n−1. Phi-3 declares a window llama.cpp disables.
var swaPatterns = map[string]int{"gemma2": 2, "gemma3": 6, "gpt-oss": 2, "cohere2": 4, "exaone4": 4}

// mamba1 architectures keep one d_inner × d_state state per layer.
var mamba1 = map[string]bool{"mamba": true, "jamba": true}

// errNoTensors refuses a GGUF without tensors, which would plan as a model
// of 0 exact bytes that fits anything (#31).
var errNoTensors = fmt.Errorf("no tensors: a GGUF model's weights are its tensors, and this file has none")

func toModel(gf *parser.GGUFFile) (m planner.Model, err error) {
	defer recoverInto(&err)
	md := newMeta(gf)
	switch md.arch {
	case "":
		return m, fmt.Errorf("GGUF metadata general.architecture: missing")
	case "clip":
		return m, fmt.Errorf("this GGUF is a vision projector (mmproj): pass it as the model's mmproj")
	}
	if m, err = dims(md); err != nil {
		return m, err
	}
	if m.Layers, err = layers(md, &m); err != nil {
		return m, err
	}
	if len(gf.TensorInfos) == 0 {
		return m, errNoTensors
	}
	m.Weights = weights(gf.TensorInfos)
	if m.VocabSize == 0 {
		m.VocabSize = vocabOf(gf, md)
	}
	return m, complete(&m, md)
}

// complete checks what the planner needs and the metadata may leave out.
func complete(m *planner.Model, md *meta) error {
	switch {
	case m.VocabSize < 1 || m.VocabSize > 1<<24:
		return fmt.Errorf("GGUF: vocabulary of %d tokens (from token_embd.weight, %s or tokenizer.ggml.tokens) is out of range [1, 2^24]", m.VocabSize, md.key("%s.vocab_size"))
	case m.HiddenSize < 1:
		return fmt.Errorf("GGUF metadata %s: 0", md.key("%s.embedding_length"))
	case m.Weights.Bytes > 1<<50:
		return fmt.Errorf("GGUF: %d bytes of tensors is more than 1 PiB", int64(m.Weights.Bytes))
	}
	return nil
}

func dims(md *meta) (planner.Model, error) {
	m := planner.Model{Arch: md.arch}
	var errs [6]error
	m.HiddenSize, errs[0] = md.need("%s.embedding_length")
	m.QueryHeads, errs[1] = md.int("%s.attention.head_count", 0)
	m.IntermediateSize, errs[2] = md.int("%s.feed_forward_length", 0)
	m.MaxContext, errs[3] = md.int("%s.context_length", 0)
	m.VocabSize, errs[4] = md.int("%s.vocab_size", 0)
	m.MoE, errs[5] = moe(md)
	for _, e := range errs {
		if e != nil {
			return m, e
		}
	}
	return m, nil
}

func moe(md *meta) (*planner.MoE, error) {
	n, err := md.int("%s.expert_count", 0)
	if n == 0 || err != nil {
		return nil, err
	}
	e := &planner.MoE{Experts: n}
	e.ExpertsUsed, _ = md.int("%s.expert_used_count", 0)
	if e.ExpertsUsed > n {
		return nil, fmt.Errorf("GGUF metadata %s: %d experts used of %d", md.key("%s.expert_used_count"), e.ExpertsUsed, n)
	}
	e.IntermediateSize, _ = md.int("%s.expert_feed_forward_length", 0)
	e.SharedExperts, _ = md.int("%s.expert_shared_count", 0)
	if w, _ := md.int("%s.expert_shared_feed_forward_length", 0); w > 0 && e.SharedExperts == 0 {
		e.SharedExperts = 1
	}
	return e, nil
}

// layerMeta is the per-layer metadata the geometry is read from.
type layerMeta struct {
	n                int
	heads, kv, ff    []int
	keyLen, valueLen int
	window           int
	sliding          []bool
	recurrent, noKV  []bool
	state            *planner.Recurrent
	latent           int
}

func layers(md *meta, m *planner.Model) ([]planner.LayerGroup, error) {
	lm, err := readLayerMeta(md, m)
	if err != nil {
		return nil, err
	}
	out := make([]planner.Layer, lm.n)
	for i := range out {
		out[i] = lm.layer(i)
	}
	return arch.Group(out), nil
}

func (lm *layerMeta) layer(i int) planner.Layer {
	switch {
	case lm.recurrent[i]:
		return planner.Layer{Kind: planner.LayerRecurrent, Recurrent: lm.state}
	case lm.noKV[i] || lm.kv[i] == 0:
		return planner.Layer{Kind: planner.LayerNone}
	case lm.latent > 0:
		return planner.Layer{Kind: planner.LayerMLA, LatentDim: lm.latent}
	}
	l := planner.Layer{Kind: planner.LayerFull, KVHeads: lm.kv[i], KeyDim: lm.keyLen, ValueDim: lm.valueLen}
	if lm.sliding[i] && lm.window > 0 {
		l.Kind, l.Window = planner.LayerSliding, lm.window
	}
	return l
}

func readLayerMeta(md *meta, m *planner.Model) (*layerMeta, error) {
	n, err := md.need("%s.block_count")
	if err == nil && (n < 1 || n > 4096) {
		err = fmt.Errorf("GGUF metadata %s: %d layers is out of range [1, 4096]", md.key("%s.block_count"), n)
	}
	if err != nil {
		return nil, err
	}
	lm := &layerMeta{n: n}
	for _, step := range []func(*meta, *planner.Model) error{lm.readHeads, lm.readWindows, lm.readRecurrent, lm.readMLA} {
		if err := step(md, m); err != nil {
			return nil, err
		}
	}
	return lm, nil
}

func (lm *layerMeta) readHeads(md *meta, m *planner.Model) error {
	var err error
	if lm.heads, err = md.perLayer("%s.attention.head_count", lm.n, 0); err != nil {
		return err
	}
	if lm.kv, err = md.perLayer("%s.attention.head_count_kv", lm.n, -1); err != nil {
		return err
	}
	for i, v := range lm.kv {
		if v < 0 {
			lm.kv[i] = lm.heads[i]
		}
	}
	if lm.ff, err = md.perLayer("%s.feed_forward_length", lm.n, 0); err != nil {
		return err
	}
	def := 0
	if m.QueryHeads > 0 {
		def = m.HiddenSize / m.QueryHeads
	}
	if lm.keyLen, err = md.int("%s.attention.key_length", def); err == nil {
		lm.valueLen, err = md.int("%s.attention.value_length", lm.keyLen)
	}
	if err == nil && (lm.keyLen == 0 || lm.valueLen == 0) && slices.Max(lm.kv) > 0 {
		err = fmt.Errorf("GGUF metadata %s: missing, and head_count gives no head size", md.key("%s.attention.key_length"))
	}
	return err
}

func (lm *layerMeta) readWindows(md *meta, _ *planner.Model) error {
	var err error
	if lm.window, err = md.int("%s.attention.sliding_window", 0); err != nil {
		return err
	}
	lm.sliding = make([]bool, lm.n)
	if a, ok := arrayValues(md.kv[md.key("%s.attention.sliding_window_pattern")]); ok {
		for i := 0; i < lm.n && i < len(a); i++ {
			lm.sliding[i] = a[i] != 0
		}
		return nil
	}
	p, err := md.int("%s.attention.sliding_window_pattern", swaPatterns[md.arch])
	for i := range lm.sliding {
		lm.sliding[i] = p > 0 && i%p < p-1
	}
	return err
}

func (lm *layerMeta) readRecurrent(md *meta, _ *planner.Model) error {
	lm.recurrent, lm.noKV = make([]bool, lm.n), make([]bool, lm.n)
	if !md.has("%s.ssm.conv_kernel") {
		return nil
	}
	every, err := md.int("%s.full_attention_interval", 0)
	for i := range lm.recurrent {
		switch {
		case md.arch == "mamba" || md.arch == "mamba2":
			lm.recurrent[i] = true
		case every > 0:
			lm.recurrent[i] = (i+1)%every != 0
		case lm.kv[i] == 0 && md.arch == "nemotron_h" && lm.ff[i] > 0:
			lm.noKV[i] = true
		default:
			lm.recurrent[i] = lm.kv[i] == 0
		}
	}
	if err != nil {
		return err
	}
	lm.state, err = recurrentState(md)
	return err
}

func recurrentState(md *meta) (*planner.Recurrent, error) {
	var v [5]int
	var err error
	for i, k := range []string{"conv_kernel", "inner_size", "state_size", "time_step_rank", "group_count"} {
		if v[i], err = md.int("%s.ssm."+k, 0); err != nil {
			return nil, err
		}
	}
	kernel, inner, state, heads, groups := v[0], v[1], v[2], v[3], v[4]
	if mamba1[md.arch] || heads == 0 {
		return &planner.Recurrent{ConvChannels: inner, ConvKernel: kernel, Heads: 1, HeadDim: inner, StateDim: state, StateBytes: 4}, nil
	}
	return &planner.Recurrent{ConvChannels: inner + 2*groups*state, ConvKernel: kernel,
		Heads: heads, HeadDim: inner / heads, StateDim: state, StateBytes: 4}, nil
}

func (lm *layerMeta) readMLA(md *meta, m *planner.Model) error {
	rank, err := md.int("%s.attention.kv_lora_rank", 0)
	if rank == 0 || err != nil {
		return err
	}
	rope, _ := md.int("%s.rope.dimension_count", 0)
	key, _ := md.int("%s.attention.key_length_mla", lm.keyLen)
	value, _ := md.int("%s.attention.value_length_mla", lm.valueLen)
	lm.latent = rank + rope
	m.MLA = &planner.MLA{KVLoraRank: rank, RopeDim: rope, NopeDim: max(key-rope, 0), ValueDim: value}
	return nil
}

// vocabOf reads the vocabulary from the token embedding or the tokenizer.
func vocabOf(gf *parser.GGUFFile, md *meta) int {
	if ti, ok := gf.TensorInfos.Get("token_embd.weight"); ok && len(ti.Dimensions) >= 2 {
		return int(min(ti.Dimensions[1], 1<<30))
	}
	if a, ok := md.kv["tokenizer.ggml.tokens"].(parser.GGUFMetadataKVArrayValue); ok {
		return int(min(a.Len, 1<<30))
	}
	return 0
}

// roleOf strips a tensor name to its llama.cpp role: "blk.3.attn_q.weight" → "attn_q".
func roleOf(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".weight"), ".bias")
	if rest, ok := strings.CutPrefix(name, "blk."); ok {
		if _, role, ok := strings.Cut(rest, "."); ok {
			return role
		}
	}
	return name
}
