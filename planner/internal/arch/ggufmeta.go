package arch

// This file writes the metadata llama.cpp's convert_hf_to_gguf.py writes for
// a config, so that tests and tools can build GGUF files whose metadata and
// tensors agree with the config's template.

// KV is one GGUF metadata entry. Values are uint32, float32, bool, string,
// or slices of uint32 or bool.
type KV struct {
	Key   string
	Value any
}

// ggufArch is llama.cpp's architecture name for each model_type.
var ggufArch = map[string]string{
	"llama": "llama", "mistral": "llama", "mixtral": "llama", "qwen2": "qwen2", "qwen3": "qwen3",
	"qwen3_moe": "qwen3moe", "gemma2": "gemma2", "gemma3_text": "gemma3", "phi3": "phi3",
	"deepseek_v2": "deepseek2", "deepseek_v3": "deepseek2", "gpt_oss": "gpt-oss", "qwen3_next": "qwen3next",
}

// GGUFMetadata returns the architecture metadata of s as llama.cpp writes it.
func (s *Spec) GGUFMetadata() []KV {
	d := &s.d
	a := ggufArch[s.Arch]
	if a == "" {
		a = "llama"
	}
	kv := []KV{{"general.architecture", a}}
	put := func(k string, v any) { // a later value replaces an earlier one: a GGUF names each key once
		for i := range kv {
			if kv[i].Key == a+"."+k {
				kv[i].Value = v
				return
			}
		}
		kv = append(kv, KV{a + "." + k, v})
	}
	put("block_count", u(len(d.plan)))
	put("context_length", u(d.maxCtx))
	put("embedding_length", u(d.hidden))
	put("feed_forward_length", u(d.inter))
	put("attention.head_count", u(d.heads))
	if d.mla.kvLora > 0 {
		put("attention.head_count_kv", u(1)) // llama.cpp caches MLA's latent as one head
	} else {
		put("attention.head_count_kv", u(d.kvHeads))
	}
	put("attention.key_length", u(d.headDim))
	put("attention.value_length", u(d.vHeadDim))
	put("vocab_size", u(d.vocab))
	if w := s.window(); w > 0 {
		put("attention.sliding_window", u(w))
	}
	d.moeMeta(put)
	d.mlaMeta(put)
	d.linearMeta(put)
	return kv
}

func u(v int) uint32 { return uint32(v) }

func (s *Spec) window() int {
	for _, p := range s.d.plan {
		if p.window > 0 {
			return p.window
		}
	}
	return 0
}

func (d *decoder) moeMeta(put func(string, any)) {
	if d.moe.experts == 0 {
		return
	}
	put("expert_count", u(d.moe.experts))
	put("expert_used_count", u(d.moe.used))
	put("expert_feed_forward_length", u(d.moe.inter))
	if d.moe.sharedGate {
		put("expert_shared_feed_forward_length", u(d.moe.sharedInter))
	} else if d.moe.shared > 0 {
		put("expert_shared_count", u(d.moe.shared))
	}
}

func (d *decoder) mlaMeta(put func(string, any)) {
	m := &d.mla
	if m.kvLora == 0 {
		return
	}
	put("attention.kv_lora_rank", u(m.kvLora))
	put("attention.q_lora_rank", u(m.qLora))
	put("rope.dimension_count", u(m.rope))
	put("attention.key_length", u(m.kvLora+m.rope))
	put("attention.value_length", u(m.kvLora))
	put("attention.key_length_mla", u(m.nope+m.rope))
	put("attention.value_length_mla", u(m.v))
	first := 0
	for first < len(d.plan) && d.plan[first].ffn == ffnDense {
		first++
	}
	put("leading_dense_block_count", u(first))
}

func (d *decoder) linearMeta(put func(string, any)) {
	l := &d.lin
	if l.kernel == 0 {
		return
	}
	put("ssm.conv_kernel", u(l.kernel))
	put("ssm.inner_size", u(l.vHeads*l.vDim))
	put("ssm.state_size", u(l.kDim))
	put("ssm.time_step_rank", u(l.vHeads))
	put("ssm.group_count", u(l.kHeads))
	every := 0
	for i, p := range d.plan {
		if p.mix != mixLinear {
			every = i + 1
			break
		}
	}
	put("full_attention_interval", u(every))
}

// VisionMetadata returns the clip metadata of s's vision tower.
func (s *Spec) VisionMetadata() []KV {
	v := s.Vision
	if v == nil {
		return nil
	}
	return []KV{{"general.architecture", "clip"}, {"clip.projector_type", "gemma3"},
		{"clip.has_vision_encoder", true}, {"clip.vision.image_size", u(v.ImageSize)},
		{"clip.vision.patch_size", u(v.PatchSize)}, {"clip.vision.embedding_length", u(int(v.Tensors[0].N))}}
}

// MmprojScheme stores a vision tower as llama.cpp's mmproj F16: matrices
// in f16; vectors, and the patch and position embeddings (which
// convert_hf_to_gguf.py forces to F32 for gemma3), in f32.
func MmprojScheme() Scheme {
	f16, f32 := mustFormat("f16"), mustFormat("f32")
	return Scheme{Dtype: "f16", pick: func(t *Tensor) Format {
		if t.Kind == KindVector || t.Kind == KindOther {
			return f32
		}
		return f16
	}}
}
