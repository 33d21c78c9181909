package planner

import "github.com/vramplan/vramplan/internal/printf"

func validateModel(in *Input) error {
	m := &in.Model
	if err := inRange("model.hidden_size", m.HiddenSize, 1, maxDim); err != nil {
		return err
	}
	if err := inRange("model.vocab_size", m.VocabSize, 1, 1<<24); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"model.intermediate_size", m.IntermediateSize}, {"model.query_heads", m.QueryHeads}, {"model.max_context", m.MaxContext}} {
		if err := inRange(f.name, f.v, 0, maxSeqLen); err != nil {
			return err
		}
	}
	if err := validateLayers(m); err != nil {
		return err
	}
	if err := validateWeights(&m.Weights); err != nil {
		return err
	}
	if err := validateVariants(m); err != nil {
		return err
	}
	return validateParts(m)
}

func validateLayers(m *Model) error {
	if len(m.Layers) == 0 {
		return bad("model.layers", "no layers")
	}
	if len(m.Layers) > maxLayers {
		return bad("model.layers", "%d layer groups, more than %d layers", len(m.Layers), maxLayers)
	}
	total := 0
	var w windowSet
	for i := range m.Layers {
		g := &m.Layers[i]
		if g.Count < 1 || g.Count > maxLayers {
			return inRange(layerField(i, "count"), g.Count, 1, maxLayers)
		}
		if total += g.Count; total > maxLayers {
			return bad("model.layers", "more than %d layers", maxLayers)
		}
		if err := validateLayer(i, &g.Layer); err != nil {
			return err
		}
		if g.Kind == LayerSliding && !w.add(g.Window) {
			return bad(layerField(i, "window"), "more than %d distinct sliding windows", maxWindows)
		}
	}
	return nil
}

// windowSet is the distinct sliding windows seen so far, at most maxWindows.
type windowSet struct {
	w [maxWindows]int
	n int
}

// add adds w and reports whether the set still holds at most maxWindows.
func (s *windowSet) add(w int) bool {
	for _, v := range s.w[:s.n] {
		if v == w {
			return true
		}
	}
	if s.n == maxWindows {
		return false
	}
	s.w[s.n] = w
	s.n++
	return true
}

// layerField names a field of layer group i; it is built only for an error.
func layerField(i int, name string) string { return printf.Sprintf("model.layers[%d].%s", i, name) }

func validateLayer(i int, l *Layer) error {
	switch l.Kind {
	case LayerFull, LayerSliding:
		return validateAttention(i, l)
	case LayerMLA:
		if l.LatentDim < 1 || l.LatentDim > maxDim {
			return inRange(layerField(i, "latent_dim"), l.LatentDim, 1, maxDim)
		}
		return nil
	case LayerRecurrent:
		return validateRecurrent(layerField(i, "recurrent"), l.Recurrent)
	case LayerNone:
		return nil
	}
	return bad(layerField(i, "kind"), "unknown layer kind %q (want full, sliding, mla, recurrent or none)", l.Kind)
}

func validateAttention(i int, l *Layer) error {
	for _, f := range [...]struct {
		name    string
		v, hi   int
		sliding bool
	}{{"kv_heads", l.KVHeads, maxHeads, false}, {"key_dim", l.KeyDim, maxDim, false},
		{"value_dim", l.ValueDim, maxDim, false}, {"window", l.Window, maxSeqLen, true}} {
		if (!f.sliding || l.Kind == LayerSliding) && (f.v < 1 || f.v > f.hi) {
			return inRange(layerField(i, f.name), f.v, 1, f.hi)
		}
	}
	return nil
}

func validateRecurrent(field string, r *Recurrent) error {
	if r == nil {
		return bad(field, "missing for a recurrent layer")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"conv_channels", r.ConvChannels}, {"conv_kernel", r.ConvKernel}, {"heads", r.Heads},
		{"head_dim", r.HeadDim}, {"state_dim", r.StateDim}, {"state_bytes", r.StateBytes}} {
		if err := inRange(field+"."+f.name, f.v, 0, maxDim); err != nil {
			return err
		}
	}
	return nil
}

func validateWeights(w *Weights) error {
	if w.Bytes < 0 || w.Bytes > maxBudget {
		return bad("model.weights.bytes", "%d is out of range [0, 1 PiB]", w.Bytes)
	}
	if len(w.Matrices) > maxMatrices {
		return bad("model.weights.matrices", "%d matrices, more than %d", len(w.Matrices), maxMatrices)
	}
	if len(w.Classes) > maxClasses {
		return bad("model.weights.classes", "%d classes, more than %d", len(w.Classes), maxClasses)
	}
	for i := range w.Classes {
		if err := validClassLayers(i, &w.Classes[i]); err != nil {
			return err
		}
	}
	for i := range w.Matrices {
		x := &w.Matrices[i]
		if inMatrixRange(x.N) && inMatrixRange(x.K) && inMatrixRange(x.Count) {
			continue // every plan validates: the fields are named only for an error
		}
		for _, d := range []struct {
			key string
			v   int
		}{{"n", x.N}, {"k", x.K}, {"count", x.Count}} {
			if !inMatrixRange(d.v) {
				return inRange(printf.Sprintf("model.weights.matrices[%d].%s", i, d.key), d.v, 1, 1<<24)
			}
		}
	}
	return nil
}

// validClassLayers checks a weight class's layers: none, or a progression
// within the planner's layer bound.
func validClassLayers(i int, c *WeightClass) error {
	if c.Step == 0 && c.From == 0 && c.Until == 0 {
		return nil
	}
	field := printf.Sprintf("model.weights.classes[%d]", i)
	if c.Step < 1 || c.From < 0 || c.Until <= c.From || c.Until > maxLayers {
		return bad(field, "layers from %d until %d by %d is not a progression of layers below %d", c.From, c.Until, c.Step, maxLayers)
	}
	return nil
}

func inMatrixRange(v int) bool { return v >= 1 && v <= 1<<24 }

func validateParts(m *Model) error {
	if e := m.MoE; e != nil {
		if err := inRange("model.moe.experts", e.Experts, 0, 1<<16); err != nil {
			return err
		}
		if err := inRange("model.moe.experts_used", e.ExpertsUsed, 0, max(e.Experts, 0)); err != nil {
			return err
		}
		if err := inRange("model.moe.intermediate_size", e.IntermediateSize, 0, maxDim); err != nil {
			return err
		}
		if err := inRange("model.moe.shared_experts", e.SharedExperts, 0, 1<<10); err != nil {
			return err
		}
	}
	if a := m.MLA; a != nil {
		for _, v := range []int{a.KVLoraRank, a.RopeDim, a.NopeDim, a.ValueDim} {
			if err := inRange("model.mla", v, 0, maxDim); err != nil {
				return err
			}
		}
	}
	if v := m.Vision; v != nil {
		if v.Bytes < 0 || v.Bytes > maxBudget {
			return bad("model.vision.bytes", "%d is out of range [0, 1 PiB]", v.Bytes)
		}
		if err := inRange("model.vision.image_size", v.ImageSize, 0, 1<<16); err != nil {
			return err
		}
		if err := inRange("model.vision.image_tokens", v.ImageTokens, 0, 1<<20); err != nil {
			return err
		}
		return validEncoder(v.Encoder)
	}
	return nil
}

// validEncoder bounds a vision encoder's dimensions, so that no product
// of them overflows.
func validEncoder(e *VisionEncoder) error {
	if e == nil {
		return nil
	}
	// Whole field names, so that a plan that validates builds no string.
	for _, d := range []struct {
		name      string
		v, lo, hi int
	}{{"model.vision.encoder.width", e.Width, 1, 1 << 16}, {"model.vision.encoder.mlp", e.MLP, 1, 1 << 16},
		{"model.vision.encoder.heads", e.Heads, 1, 1 << 16}, {"model.vision.encoder.patch", e.Patch, 1, 1 << 16},
		{"model.vision.encoder.temporal", e.Temporal, 1, 1 << 16}, {"model.vision.encoder.channels", e.Channels, 1, 1 << 16},
		{"model.vision.encoder.merge", e.Merge, 1, 1 << 16}, {"model.vision.encoder.item_tokens", e.ItemTokens, 1, 1 << 24},
		{"model.vision.encoder.out_width", e.OutWidth, 1, 1 << 30}, {"model.vision.encoder.depth", e.Depth, 0, 1 << 12},
		{"model.vision.encoder.video_pixels", e.VideoPixels, 0, 1 << 36}, {"model.vision.encoder.video_frames", e.VideoFrames, 0, 1 << 16}} {
		if err := inRange(d.name, d.v, d.lo, d.hi); err != nil {
			return err
		}
	}
	return nil
}
