package planner

// This file is the weight-format lever. A catalog model published in
// several weight formats (the same shape, quantized differently) carries
// the others as its Variants, and a report that does not fit, and whose
// limits and features cannot make it fit, offers the smaller formats: the
// largest one that fits the input's own layout, or else the one that fits
// on the fewest GPUs, when that is fewer GPUs than its own format needs
// ("fits on 2 GPUs at FP8").

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// KnobWeights changes the model's weight format to one of its Variants.
// The lever's To is the variant's ID, followed, when it fits only on more
// GPUs than the input's layout, by " on N GPUs (layout)".
const KnobWeights Knob = "weights"

// Variant is the model in another weight format: its ID and name (a
// catalog's), and its weights. Everything else about the model is the same.
type Variant struct {
	ID      string  `json:"id"`
	Name    string  `json:"name,omitempty"`
	Weights Weights `json:"weights"`
}

// maxVariants bounds a model's variants: each costs a search in a report.
const maxVariants = 16

func validateVariants(m *Model) error {
	if len(m.Variants) > maxVariants {
		return bad("model.variants", "%d variants, more than %d", len(m.Variants), maxVariants)
	}
	for i := range m.Variants {
		if err := validateWeights(&m.Variants[i].Weights); err != nil {
			ie := err.(*InputError)
			return bad(printf.Sprintf("model.variants[%d].%s", i, strings.TrimPrefix(ie.Field, "model.")), "%s", ie.Msg)
		}
	}
	return nil
}

// WithVariant returns m in the weight format of its variant id, with the
// variant's ID and name, and reports whether m has that variant.
func (m Model) WithVariant(id string) (Model, bool) {
	for _, v := range m.Variants {
		if v.ID == id {
			m.ID, m.Name, m.Weights = v.ID, cmp.Or(v.Name, v.ID), v.Weights
			m.Source = "variant of " + m.Source
			return m, true
		}
	}
	return m, false
}

// smallerVariants returns the variants whose weights are smaller than the
// model's, largest first: the least lossy format first.
func smallerVariants(m *Model) []*Variant {
	var out []*Variant
	for i := range m.Variants {
		v := &m.Variants[i]
		if v.Weights.Bytes >= m.Weights.Bytes {
			continue
		}
		out = append(out, v) // insertion sort: at most maxVariants
		for j := len(out) - 1; j > 0 && out[j].Weights.Bytes > out[j-1].Weights.Bytes; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// withWeights is in with the model's weights replaced by v's.
func withWeights(in *Input, v *Variant) Input {
	t := *in
	t.Model.Weights, t.Model.ID, t.Model.Variants = v.Weights, v.ID, nil
	return t
}

// weightsLever is the weight-format lever of a failing input that is base
// over its budget on its worst rank and whose own format needs gpus GPUs
// (0: none found). Its fewest-GPUs searches charge *work, the report's
// layout searches' bound, and stop when st says so.
func weightsLever(in *Input, base Bytes, gpus int, work *int, st *stopper) (Lever, bool) {
	vs := smallerVariants(&in.Model)
	lv := Lever{Knob: KnobWeights, From: in.Model.ID, Fits: true}
	for _, v := range vs {
		if st.stop() {
			return Lever{}, false
		}
		t := withWeights(in, v)
		if over, ok := tryLayout(&t, t.Parallel); ok && over <= 0 {
			lv.To, lv.Frees = v.ID, base-over
			return lv, true
		}
	}
	var best GPUCount
	for _, v := range vs {
		t := withWeights(in, v)
		if c := minGPUsShared(&t, work, st); c.GPUs > 0 && (best.GPUs == 0 || c.GPUs < best.GPUs) {
			best, lv.To, lv.Frees = c, v.ID, base+c.Headroom
		}
	}
	if best.GPUs == 0 || (gpus > 0 && best.GPUs >= gpus) {
		return Lever{}, false
	}
	lv.To += " on " + strconv.Itoa(best.GPUs) + " GPUs (" + best.Parallel.String() + ")"
	return lv, true
}
