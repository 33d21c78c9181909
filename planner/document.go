package planner

import "github.com/vramplan/vramplan/internal/printf"

// MaxDocument is the largest input or plan document the parsers accept.
// Model shapes with per-tensor matrices stay far below it.
const MaxDocument = 8 << 20

// ParseInput decodes and validates an input document. Unknown fields and
// a key repeated in one object are errors, so a misspelled or doubled knob
// cannot silently take a value the writer did not mean.
func ParseInput(data []byte) (Input, error) {
	var in Input
	if err := decodeStrict(data, &in); err != nil {
		return Input{}, err
	}
	return in, Validate(&in)
}

// ParsePlan decodes a plan document, validates the input it carries, and
// checks that planning that input again reproduces the document's figures.
func ParsePlan(data []byte) (Plan, error) {
	var p Plan
	if err := decodeStrict(data, &p); err != nil {
		return Plan{}, err
	}
	if p.Schema != PlanSchema {
		return Plan{}, printf.Errorf("plan schema %q, want %q", p.Schema, PlanSchema)
	}
	again, err := PlanMemory(p.Input)
	if _, ok := err.(*InputError); ok {
		return Plan{}, printf.Errorf("plan input: %w", err)
	}
	if err := sameFigures(&p, &again); err != nil {
		return Plan{}, err
	}
	if err := sameLayout(&p, &again); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// sameFigures reports where a decoded plan disagrees with its re-plan.
func sameFigures(p, q *Plan) error {
	if p.Fits != q.Fits || p.Total != q.Total || p.Budget != q.Budget || len(p.Items) != len(q.Items) {
		return printf.Errorf("plan does not reproduce: total %d fits %v, re-planned %d fits %v",
			p.Total, p.Fits, q.Total, q.Fits)
	}
	for i := range p.Items {
		a, b := p.Items[i], q.Items[i]
		if a.Key != b.Key || a.Bytes != b.Bytes || a.Tier != b.Tier {
			return printf.Errorf("plan does not reproduce: item %d is %s %d, re-planned %s %d", i, a.Key, a.Bytes, b.Key, b.Bytes)
		}
	}
	if p.KV.Blocks != q.KV.Blocks || p.KV.Reserve != q.KV.Reserve {
		return printf.Errorf("plan does not reproduce: KV blocks %d, re-planned %d", p.KV.Blocks, q.KV.Blocks)
	}
	return nil
}

func decodeStrict(data []byte, v any) error {
	if len(data) > MaxDocument {
		return printf.Errorf("document is %d bytes, more than %d", len(data), MaxDocument)
	}
	if err := unmarshalStrict(data, v); err != nil {
		return printf.Errorf("decoding: %w", err)
	}
	if k, dup := DuplicateKey(data); dup {
		return printf.Errorf("decoding: key %q appears twice in one object (keys match without regard to case)", truncate(k, 64))
	}
	return nil
}

// truncate returns s cut to at most n bytes, marked when cut, so that an
// error never echoes a whole hostile document.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// JSON returns the canonical encoding of p: two-space indented, newline
// terminated. It is byte-identical for equal plans.
func (p *Plan) JSON() []byte {
	b, err := marshalIndent(p)
	if err != nil {
		panic("planner: plan does not marshal: " + err.Error()) // only plain data; cannot happen
	}
	return append(b, '\n')
}

// ParseModel decodes and validates a model-shape document, the planner's
// own format for a Model.
func ParseModel(data []byte) (Model, error) {
	var in Input
	if err := decodeStrict(data, &in.Model); err != nil {
		return Model{}, err
	}
	return in.Model, validateModel(&in)
}
