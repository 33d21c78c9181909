package arch

import (
	"fmt"
	"slices"

	"github.com/vramplan/vramplan/planner"
)

// MaxConfig bounds the size of a config.json.
const MaxConfig = 4 << 20

// Spec is a config.json read through its architecture's template.
type Spec struct {
	Arch    string   // model_type of the language model
	Tensors []Tensor // the language model's tensors
	Scheme  Scheme   // torch_dtype and quantization_config
	Base    Format   // torch_dtype
	Vision  *Vision  // the vision tower, when the config has one
	d       decoder
}

// Vision is a vision tower's tensors and image geometry.
type Vision struct {
	Tensors     []Tensor
	ImageSize   int
	PatchSize   int
	ImageTokens int
	Encoder     *planner.VisionEncoder // the transformer's shape, nil when not read
	// TPSplit reports whether vLLM's copy of the tower builds its
	// projections as tensor-parallel layers, read for the Qwen towers
	// (splitBytes).
	TPSplit bool
}

// Parse reads a config.json.
func Parse(data []byte) (*Spec, error) {
	if len(data) > MaxConfig {
		return nil, fmt.Errorf("config.json: %d bytes is more than %d", len(data), MaxConfig)
	}
	f, err := newFields(data)
	if err != nil {
		return nil, err
	}
	tf, mt := textFields(f)
	s := &Spec{Arch: mt, d: decoder{arch: mt, names: llamaNames}}
	if err := readTemplate(tf, mt, &s.d); err != nil {
		return nil, err
	}
	if err := s.d.check(tf); err != nil {
		return nil, err
	}
	if s.Scheme, err = readScheme(f); err != nil {
		return nil, err
	}
	s.Base, _ = FormatNamed(f.str("torch_dtype"))
	if s.Base.Name == "" {
		s.Base = mustFormat("bf16")
	}
	s.Tensors = s.d.tensors()
	s.Vision = readVision(f, s.d.hidden)
	return s, *f.err
}

// textFields returns the language model's fields and model_type: a
// multimodal config's text_config, else the config itself.
func textFields(f *fields) (*fields, string) {
	mt := f.str("model_type")
	tf := f.sub("text_config")
	if tf == nil {
		return f, mt
	}
	tmt := tf.str("model_type")
	if tmt == "" {
		tmt = textTypes[mt]
	}
	return tf, tmt
}

func readTemplate(f *fields, mt string, d *decoder) error {
	t, ok := templates[mt]
	if ok {
		t(f, d)
		return *f.err
	}
	readLlama(f, d)
	if err := *f.err; err != nil {
		if mt == "" {
			return fmt.Errorf("config.json has no model_type, and the generic decoder cannot read it: %w", err)
		}
		return fmt.Errorf("model_type %q has no template (known: %v), and the generic decoder cannot read it: %w", mt, Architectures(), err)
	}
	return nil
}

// Model builds the planner's model from s with weights stored under sc.
func (s *Spec) Model(sc Scheme) planner.Model {
	d := &s.d
	m := planner.Model{Arch: s.Arch, HiddenSize: d.hidden, VocabSize: d.vocab,
		QueryHeads: d.heads, MaxContext: d.maxCtx, Layers: Group(d.layers())}
	if slices.ContainsFunc(d.plan, func(p layerPlan) bool { return p.ffn == ffnDense }) {
		m.IntermediateSize = d.inter
	}
	if d.moe.experts > 0 {
		m.MoE = &planner.MoE{Experts: d.moe.experts, ExpertsUsed: d.moe.used,
			IntermediateSize: d.moe.inter, SharedExperts: d.moe.shared}
	}
	if d.plan != nil && d.plan[0].mix == mixMLA {
		m.MLA = &planner.MLA{KVLoraRank: d.mla.kvLora, RopeDim: d.mla.rope, NopeDim: d.mla.nope, ValueDim: d.mla.v}
	}
	m.Weights = Summarize(s.Tensors, sc)
	m.Weights.Source = planner.SourceFormula
	if sc.converted {
		m.Weights.Converted = sc.Dtype
	}
	if v := s.Vision; v != nil {
		w := Summarize(v.Tensors, Uniform(s.Base))
		m.Vision = &planner.Vision{Bytes: w.Bytes, Source: planner.SourceFormula, SplitBytes: splitBytes(v, Uniform(s.Base)),
			ImageSize: v.ImageSize, ImageTokens: v.ImageTokens, Encoder: v.Encoder}
	}
	return m
}

// check bounds the dimensions a template read, so that no sum overflows
// and no layer is left without the geometry the planner needs.
func (d *decoder) check(f *fields) error {
	for _, c := range []struct {
		key       string
		v, lo, hi int
	}{
		{"num_hidden_layers", len(d.plan), 1, maxLayers}, {"hidden_size", d.hidden, 1, 1 << 20},
		{"vocab_size", d.vocab, 1, 1 << 24}, {"num_attention_heads", d.heads, 1, 1 << 16},
		{"num_key_value_heads", d.kvHeads, 1, 1 << 16}, {"head_dim", d.headDim, 1, 1 << 16},
		{"intermediate_size", d.inter, 0, 1 << 24}, {"num_experts", d.moe.experts, 0, 1 << 16},
		{"num_experts_per_tok", d.moe.used, 0, d.moe.experts}, {"moe_intermediate_size", d.moe.inter, 0, 1 << 20},
		{"n_shared_experts", d.moe.shared, 0, 1 << 10}, {"shared_expert_intermediate_size", d.moe.sharedInter, 0, 1 << 20},
		{"kv_lora_rank", d.mla.kvLora, 0, 1 << 16}, {"q_lora_rank", d.mla.qLora, 0, 1 << 20},
		{"qk_rope_head_dim", d.mla.rope, 0, 1 << 16}, {"qk_nope_head_dim", d.mla.nope, 0, 1 << 16},
		{"v_head_dim", d.mla.v, 0, 1 << 16}, {"max_position_embeddings", d.maxCtx, 0, 1 << 27},
		{"linear_conv_kernel_dim", d.lin.kernel, 0, 1 << 10}, {"linear_num_key_heads", d.lin.kHeads, 0, 1 << 12},
		{"linear_num_value_heads", d.lin.vHeads, 0, 1 << 12}, {"linear_key_head_dim", d.lin.kDim, 0, 1 << 12},
		{"linear_value_head_dim", d.lin.vDim, 0, 1 << 12},
		{"mamba_n_heads", d.ssm.heads, 0, 1 << 12}, {"mamba_d_head", d.ssm.headDim, 0, 1 << 12},
		{"mamba_n_groups", d.ssm.groups, 0, 1 << 10}, {"mamba_d_state", d.ssm.state, 0, 1 << 12},
		{"mamba_d_conv", d.ssm.kernel, 0, 1 << 10}, {"conv_L_cache", d.conv.kernel, 0, 1 << 10},
	} {
		if c.v < c.lo || c.v > c.hi {
			f.fail(c.key, "%d is out of range [%d, %d]", c.v, c.lo, c.hi)
		}
	}
	return *f.err
}

// splitBytes is the bytes of a tower's projection matrices, which vLLM
// shards by tensor parallelism (its Qwen towers' QKVParallelLinear,
// ColumnParallelLinear and RowParallelLinear) where v.TPSplit says so, else
// 0: every GEMM weight but the patch embedding, a replicated convolution;
// biases, norms and position tables stay whole.
func splitBytes(v *Vision, sc Scheme) planner.Bytes {
	if !v.TPSplit {
		return 0
	}
	var b int64
	for i := range v.Tensors {
		if t := &v.Tensors[i]; t.Kind == KindMatrix && !t.Bias && t.Role != "v.patch_embd" {
			b += satMul(int64(max(t.Experts, 1)), sc.Format(t).Bytes(t.N, t.K))
		}
	}
	return planner.Bytes(b)
}
