package enginelog

import (
	"slices"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// gib is x GiB, as the engine's reader reads "x GiB".
func gib(x float64) planner.Bytes { return planner.Bytes(x * float64(planner.GiB)) }

// corpusLog is a corpus entry's log, read.
func corpusLog(t *testing.T, name string) Log {
	t.Helper()
	return fixture(t, "../../../testdata/engines/corpus/vllm/"+name)
}

// TestStageFigures: a later pipeline stage's figures are kept as its lowest
// rank printed them, by the rank in the world vLLM's "VllmWorker rank=N"
// prints (ranks 2 and 3 of TP 2 × PP 2 are stage 1 and print alike: rank
// 2's) or by "Worker_PP1_TP0"'s stage; a rank of the first stage that
// prints what rank 0 prints keeps nothing, and one that prints another
// value keeps it, once for each value.
func TestStageFigures(t *testing.T) {
	for _, c := range []struct {
		log  string
		want []RankFigures
	}{
		{"vllm-unknown-v1-deepseek-v2-lite-l4-tp2-pp2.log", []RankFigures{{Rank: "2", World: 2,
			Figures: []Figure{{Key: "kv", Bytes: gib(11.33)}}}}},
		{"vllm-0.27.1-qwen3-32b-rtx-pro-6000-util0.426-pp2.log", []RankFigures{{Rank: "PP1 TP0", Stage: 1,
			Figures: []Figure{{Key: "weights", Bytes: gib(30.52)}}}}},
		{"vllm-0.10.2-qwen3-235b-a22b-fp8-l40s-tp8-ep.log", []RankFigures{ // 10.68 GiB and 0.18 GiB outside torch on rank 0
			{Rank: "TP1", TP: 1, Figures: []Figure{{Key: "kv", Bytes: gib(10.64)}}},
			{Rank: "TP2", TP: 2, Figures: []Figure{{Key: "kv", Bytes: gib(10.64)}, {Key: "non_torch", Bytes: gib(0.21)}}}, // its start report
			{Rank: "TP3", TP: 3, Figures: []Figure{{Key: "kv", Bytes: gib(10.65)}}}}},
		{"vllm-0.8.5-qwen3-32b-l20-tp2.log", nil},
	} {
		l := corpusLog(t, c.log)
		var got []RankFigures
		for _, rf := range l.Ranks {
			for i, f := range rf.Figures {
				if f.Rank != rf.Rank {
					t.Errorf("%s: rank %s's figure %s names rank %q", c.log, rf.Rank, f.Key, f.Rank)
				}
				rf.Figures[i] = Figure{Key: f.Key, Bytes: f.Bytes}
			}
			got = append(got, rf)
		}
		if !slices.EqualFunc(got, c.want, func(a, b RankFigures) bool {
			return a.Rank == b.Rank && a.World == b.World && a.DP == b.DP && a.Stage == b.Stage && a.TP == b.TP && slices.Equal(a.Figures, b.Figures)
		}) {
			t.Errorf("%s: Ranks = %+v, want %+v", c.log, got, c.want)
		}
	}
	if l := fixture(t, "vllm-v1-0.21-tp4-rtx3090.log"); l.Ranks != nil {
		t.Errorf("a TP 4 log whose ranks print alike keeps %+v", l.Ranks)
	}
}

// stagePlan is a TP 2 × PP 2 layout plan whose stages hold kv bytes and
// tokens each.
func stagePlan(kv [2]planner.Bytes, tokens [2]int64) planner.Plan {
	l := &planner.Layout{Parallel: planner.Parallel{Tensor: 2, Pipeline: 2, Expert: 1, Data: 1}, GPUs: 4}
	for s := range 2 {
		rp := planner.Plan{Input: planner.Input{Rank: &planner.Rank{Stage: s}},
			Items:  []planner.Item{{Key: "kv", Bytes: kv[s]}},
			Engine: &planner.EngineReport{Pool: &planner.PoolAnswer{PoolBytes: kv[s], Tokens: tokens[s], BlockTokens: 16}}}
		l.Ranks = append(l.Ranks, planner.RankPlan{Ranks: []int{2 * s, 2*s + 1}, Plan: rp})
	}
	return planner.Plan{Layout: l}
}

// TestCompareRanks: stage 1's figure is set against stage 1's plan, once
// however many of its ranks printed it, and a rank outside the layout is
// not compared; the pool against the stage with the fewest tokens, the
// log's binding stage read from each stage's KV memory at its plan's
// bytes per token.
func TestCompareRanks(t *testing.T) {
	p := stagePlan([2]planner.Bytes{12 * planner.GiB, 11 * planner.GiB}, [2]int64{800_000, 790_000})
	l := Log{Figures: []Figure{{Key: "kv", Bytes: 12 * planner.GiB}}, Pool: &PoolFigures{Tokens: 790_000},
		Ranks: []RankFigures{
			{Rank: "2", World: 2, Figures: []Figure{{Key: "kv", Bytes: 10 * planner.GiB}}},
			{Rank: "3", World: 3, Figures: []Figure{{Key: "kv", Bytes: 9 * planner.GiB}}},
			{Rank: "9", World: 9, Figures: []Figure{{Key: "kv", Bytes: 9 * planner.GiB}}},
		}}
	got := CompareRanks(&l, &p)
	if len(got) != 1 || got[0].Rank != "2" || got[0].Stage != 1 || !slices.Equal(got[0].Ranks, []int{2, 3}) ||
		len(got[0].Rows) != 1 || got[0].Rows[0].Plan != 11*planner.GiB || got[0].Rows[0].Log != 10*planner.GiB {
		t.Errorf("CompareRanks = %+v, want rank 2's KV cache against stage 1's 11 GiB", got)
	}
	pr := ComparePool(&l, &p)
	if pr == nil || pr.Plan != 790_000 || pr.Stages == nil || pr.Stages.Plan != 1 || pr.Stages.Log != 1 ||
		!slices.Equal(pr.Stages.LogTokens, []int64{800_000, 718_181}) {
		t.Errorf("ComparePool = %+v (stages %+v), want stage 1's 790,000 tokens, binding in both", pr, pr.Stages)
	}
	l.Ranks = l.Ranks[:0]
	if pr := ComparePool(&l, &p); pr.Stages.Log != -1 || pr.Stages.LogTokens[1] != 0 {
		t.Errorf("ComparePool of a log that prints stage 0's KV memory only: stages %+v, want the log's binding stage unknown", pr.Stages)
	}
	if rr := CompareRanks(&l, &p); rr != nil {
		t.Errorf("CompareRanks of a log whose ranks print alike = %+v, want none", rr)
	}
}
