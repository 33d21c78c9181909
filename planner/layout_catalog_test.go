package planner_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// catalogLayouts draws valid layouts of catalog models; it returns the
// model's input at one GPU and the layout input.
func catalogLayouts(t *testing.T, n int, draw func(*rand.Rand) planner.Parallel) [][2]planner.Input {
	t.Helper()
	models, err := catalog.All()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 7))
	var out [][2]planner.Input
	for len(out) < n {
		m := models[r.IntN(len(models))]
		one := planner.Input{Model: m, Limits: planner.Limits{MaxBatch: 1 + r.IntN(64), MaxSeqLen: 1 + r.IntN(32768)},
			Calibration: planner.Calibration{Schema: planner.CalibrationSchema, ID: "g", DeviceTotal: 141 * planner.GiB}}
		in := one
		in.Parallel = draw(r)
		if planner.Validate(&in) == nil {
			out = append(out, [2]planner.Input{one, in})
		}
	}
	return out
}

// TestRankWeightsSumToModel checks, over random layouts of the catalog,
// that the ranks of one replica hold the model: no less than its weights
// (less a byte per class and rank of rounding), and no more than its
// weights plus the parts that are replicated — norms, routers, KV
// projections past the wall, MLA's latent projections, a tied embedding's
// copy on the last stage — and the vocabulary padding.
func TestRankWeightsSumToModel(t *testing.T) {
	sizes := []int{1, 2, 4, 8, 16}
	for i, c := range catalogLayouts(t, 300, func(r *rand.Rand) planner.Parallel {
		return planner.Parallel{Tensor: sizes[r.IntN(5)], Pipeline: sizes[r.IntN(4)], Expert: sizes[r.IntN(3)]}
	}) {
		one, in := c[0], c[1]
		p, err := planner.PlanMemory(in)
		if p.Layout == nil {
			continue
		}
		if _, bad := err.(*planner.InputError); bad {
			t.Fatal(err)
		}
		var sum planner.Bytes
		for _, rp := range p.Layout.Ranks {
			sum += rp.Plan.Weights * planner.Bytes(len(rp.Ranks))
		}
		model := one.Model.Weights.Bytes
		gpus := planner.Bytes(p.Layout.GPUs)
		lo := model - gpus*planner.Bytes(len(one.Model.Weights.Classes)+1)
		hi := model + (gpus-1)*replicatedBound(&one.Model) + paddingBound(&one.Model, in.Parallel.Tensor)
		if sum < lo || sum > hi {
			t.Errorf("case %d: %s at %+v: ranks hold %d B, want within [%d, %d] (model %d)", i, one.Model.ID,
				p.Layout.Parallel, sum, lo, hi, model)
		}
	}
}

// replicatedBound is an upper bound on the bytes a rank may hold that
// another rank holds too: the norms, every attention and expert-router
// byte, and the embedding (a tied copy on the last stage).
func replicatedBound(m *planner.Model) planner.Bytes {
	var b planner.Bytes
	for _, c := range m.Weights.Classes {
		switch c.Class {
		case "norm", "attention", "embedding", "other":
			b += c.Bytes
		}
	}
	if e := m.MoE; e != nil {
		b += planner.Bytes(m.NumLayers()) * planner.Bytes(e.Experts) * planner.Bytes(m.HiddenSize) * 2
	}
	return b
}

// paddingBound is what the vocabulary's padding to 64 adds to the
// embedding and LM head across tp ranks.
func paddingBound(m *planner.Model, tp int) planner.Bytes {
	var b planner.Bytes
	for _, c := range m.Weights.Classes {
		if c.Class == "embedding" || c.Class == "output" {
			b += c.Bytes * 64 / planner.Bytes(m.VocabSize)
		}
	}
	return b * planner.Bytes(max(tp, 1)+1)
}

// TestMoreTPNeverGrowsARank checks monotonicity: doubling the tensor-
// parallel size never increases the weights, nor the KV per token, of the
// rank at the same stage.
func TestMoreTPNeverGrowsARank(t *testing.T) {
	sizes := []int{1, 2, 4}
	for i, c := range catalogLayouts(t, 200, func(r *rand.Rand) planner.Parallel {
		return planner.Parallel{Tensor: sizes[r.IntN(3)], Pipeline: 1 + r.IntN(4)}
	}) {
		in := c[1]
		more := in
		more.Parallel.Tensor = 2 * max(in.Parallel.Tensor, 1)
		if planner.Validate(&more) != nil {
			continue
		}
		a, _ := planner.PlanMemory(in)
		b, _ := planner.PlanMemory(more)
		for s := 0; s < max(in.Parallel.Pipeline, 1); s++ {
			x, y := stageRank(&a, s), stageRank(&b, s)
			if y.Weights > x.Weights || y.KV.BytesPerToken > x.KV.BytesPerToken {
				t.Errorf("case %d: %s stage %d: TP %d→%d grows weights %d→%d or KV/token %d→%d", i, in.Model.ID, s,
					in.Parallel.Tensor, more.Parallel.Tensor, x.Weights, y.Weights, x.KV.BytesPerToken, y.KV.BytesPerToken)
			}
		}
	}
}

// stageRank is the plan of the first rank of stage s.
func stageRank(p *planner.Plan, s int) planner.Plan {
	if p.Layout == nil {
		return *p
	}
	for _, rp := range p.Layout.Ranks {
		if rp.Plan.Input.Rank.Stage == s {
			return rp.Plan
		}
	}
	return planner.Plan{}
}
