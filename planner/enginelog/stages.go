package enginelog

// This file keeps what ranks other than rank 0 printed where it is not
// rank 0's: every figure of a later pipeline stage's lowest rank, and a
// figure of a first-stage rank whose value is not rank 0's. A check then
// sets each against the plan of the rank that printed it (CompareRanks),
// and the KV pool against the plan's stage with the fewest tokens, which
// sizes every rank's cache (ComparePool). A log of one stage whose ranks
// print alike, the common TP log, keeps nothing here.
//
// vLLM numbers a worker two ways: "(Worker_PP1_TP0 pid=…)" names its
// stage and tensor rank, "(VllmWorker rank=2 pid=…)" its rank in the
// world, whose layout is data × pipeline × tensor, tensor fastest
// (vllm/distributed/parallel_state.py, initialize_model_parallel: "the
// layout order is: ExternalDP x DP x PP x TP", all_ranks =
// arange(world_size).reshape(-1, dp, pp, tp); read in the code index's
// copy of mystous/vllm_hybrid at 17e68d61, a fork's commit, not a tag),
// which is the planner's rank order too (planner.Layout.Ranks).

import "github.com/vramplan/vramplan/planner"

// RankFigures are the figures one rank other than rank 0 printed that are
// not rank 0's: all of a later pipeline stage's lowest rank, those of a
// first-stage rank whose value differs from rank 0's figure of its key.
// Each figure is that rank's line, never two ranks' mixed.
type RankFigures struct {
	// Rank names the rank as its lines do ("PP1 TP0", or "2" for a rank in
	// the world).
	Rank string `json:"rank"`
	// World is the rank's number in the whole layout when its lines print
	// that (vLLM's "VllmWorker rank=N"); else DP, Stage and TP are its
	// coordinates.
	World   int      `json:"world,omitempty"`
	DP      int      `json:"dp,omitempty"`
	Stage   int      `json:"stage,omitempty"`
	TP      int      `json:"tp,omitempty"`
	Figures []Figure `json:"figures"`
}

// maxRankFigures bounds Log.Ranks, maxRankReads the ranks read for it.
const (
	maxRankFigures = 16
	maxRankReads   = 64
)

// GlobalRank returns the rank r is in a layout of sizes par (resolved, as
// planner.Layout.Parallel is), or -1 when it is none of its ranks.
func (r *RankFigures) GlobalRank(par planner.Parallel) int {
	tp, pp, dp := max(par.Tensor, 1), max(par.Pipeline, 1), max(par.Data, 1)
	g := r.World
	if g == 0 {
		if r.TP >= tp || r.Stage >= pp {
			return -1
		}
		g = (r.DP*pp+r.Stage)*tp + r.TP
	}
	if g <= 0 || g >= tp*pp*dp {
		return -1
	}
	return g
}

// stage returns the pipeline stage of w, with a rank in the world read
// by the sizes the log states (one stage when it states none).
func (r *reader) stage(w worker) int {
	if !w.world {
		return w.pp
	}
	tp, pp := max(r.settings.TensorParallel, 1), max(r.settings.PipelineParallel, 1)
	return w.tp / tp % pp
}

// otherRanks reads each other rank's lines on their own, the lowest
// rank's of each stage first, and keeps what of them is not rank 0's
// (RankFigures). It reads nothing when no other rank printed a line.
func (r *reader) otherRanks() []RankFigures {
	var ws []worker // by stage, then rank: a hand-written insertion, as a sort's generic code is large in the page's modules
	for _, k := range r.rankLines {
		i := len(ws)
		for j, w := range ws {
			if w == k.w {
				i = -1
				break
			}
			if sw, sk := r.stage(w), r.stage(k.w); i == len(ws) && (sk < sw || sk == sw && w.after(k.w)) {
				i = j
			}
		}
		if i >= 0 && k.w != r.as {
			ws = append(ws, worker{})
			copy(ws[i+1:], ws[i:])
			ws[i] = k.w
		}
	}
	var out []RankFigures
	for _, w := range ws[:min(len(ws), maxRankReads)] {
		if w.pid > 0 || len(out) == maxRankFigures {
			continue // a V0 worker process's rank is unknown
		}
		if rf, ok := r.rankFigures(w, out); ok {
			out = append(out, rf)
		}
	}
	return out
}

// rankFigures reads rank w's lines and returns what of them to keep: none
// when they are rank 0's, or when a rank of w's stage kept in out printed
// the same.
func (r *reader) rankFigures(w worker, out []RankFigures) (RankFigures, bool) {
	sub := &reader{as: w}
	for _, k := range r.rankLines {
		if k.w == w {
			readers[k.lr].read(sub, k.line)
		}
	}
	stage := r.stage(w)
	rf := RankFigures{Rank: w.label(), DP: w.dp, Stage: w.pp, TP: w.tp}
	if w.world {
		rf = RankFigures{Rank: w.label(), World: w.tp}
	}
	for _, key := range sub.order {
		f := *sub.sums[key]
		if base, ok := r.sums[key]; stage == 0 && ok && base.Bytes == f.Bytes {
			continue
		}
		f.Rank = rf.Rank
		rf.Figures = append(rf.Figures, f)
	}
	if len(rf.Figures) == 0 {
		return rf, false
	}
	for i := range out {
		if r.stageOf(&out[i]) == stage && sameValues(out[i].Figures, rf.Figures) {
			return rf, false
		}
	}
	return rf, true
}

// stageOf is the stage of a kept rank as the log's own sizes place it.
func (r *reader) stageOf(rf *RankFigures) int {
	if rf.World > 0 {
		return r.stage(worker{tp: rf.World, world: true})
	}
	return rf.Stage
}

// sameValues reports whether two ranks' figures are alike: the same keys
// and bytes, in order.
func sameValues(a, b []Figure) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Bytes != b[i].Bytes {
			return false
		}
	}
	return true
}

// RankRows are the rows of one rank other than rank 0 whose plan is not
// rank 0's (a later pipeline stage's, a rank holding other experts), its
// figures set against that plan.
type RankRows struct {
	// Rank names the rank whose lines the figures are (RankFigures.Rank);
	// Stage is its pipeline stage in the plan and Ranks the plan's ranks
	// that hold what it holds.
	Rank  string `json:"rank"`
	Stage int    `json:"stage"`
	Ranks []int  `json:"ranks"`
	Rows  []Row  `json:"rows"`
}

// CompareRanks sets the figures each other rank of l printed that are not
// rank 0's (Log.Ranks) against the plan of that rank in p's layout, one
// RankRows for each of the layout's distinct ranks other than rank 0's,
// from the lowest rank of it that printed any. It is nil for a plan of one
// GPU and for a log whose ranks print alike.
func CompareRanks(l *Log, p *planner.Plan) []RankRows {
	if p.Layout == nil || len(l.Ranks) == 0 {
		return nil
	}
	var out []RankRows
	done := make([]bool, len(p.Layout.Ranks))
	if g := groupOf(p.Layout, 0); g >= 0 {
		done[g] = true
	}
	for i := range l.Ranks {
		rf := &l.Ranks[i]
		gi := groupOf(p.Layout, rf.GlobalRank(p.Layout.Parallel))
		if gi < 0 || done[gi] {
			continue
		}
		done[gi] = true
		rp := &p.Layout.Ranks[gi]
		out = append(out, RankRows{Rank: rf.Rank, Stage: stageOf(&rp.Plan), Ranks: rp.Ranks, Rows: Compare(&Log{Figures: rf.Figures}, &rp.Plan)})
	}
	return out
}

// groupOf returns the index in l.Ranks of the plan that rank r serves, or -1.
func groupOf(l *planner.Layout, r int) int {
	for i := range l.Ranks {
		for _, x := range l.Ranks[i].Ranks {
			if x == r {
				return i
			}
		}
	}
	return -1
}

// stageOf is the pipeline stage of a rank's plan.
func stageOf(p *planner.Plan) int {
	if rk := p.Input.Rank; rk != nil {
		return rk.Stage
	}
	return 0
}

// PoolStages says which pipeline stage's KV cache binds: the engine sizes
// every rank's cache to the fewest tokens any stage holds (vLLM V1's
// EngineCore takes the least of its workers' blocks; V0 the least of
// their GPU blocks), so the log's pool is its binding stage's.
type PoolStages struct {
	// Plan is the plan's binding stage, PlanTokens each stage's tokens.
	Plan       int     `json:"plan"`
	PlanTokens []int64 `json:"plan_tokens"`
	// Log is the log's binding stage, -1 when its lines do not state every
	// stage's KV cache memory; LogTokens each stage's KV cache memory as
	// tokens at its plan's bytes per token, 0 for a stage that states none.
	Log       int     `json:"log"`
	LogTokens []int64 `json:"log_tokens"`
}

// poolStages returns which stage binds in l and in p, a plan of pipeline
// stages, and the plan of the binding stage's rank with the fewest tokens;
// nil for a plan of one stage or one whose ranks plan no pool.
func poolStages(l *Log, p *planner.Plan) (*PoolStages, *planner.Plan) {
	lay := p.Layout
	if lay == nil || lay.Parallel.Pipeline < 2 {
		return nil, nil
	}
	n := lay.Parallel.Pipeline
	ps := &PoolStages{Log: -1, PlanTokens: make([]int64, n), LogTokens: make([]int64, n)}
	logKV := make([]planner.Bytes, n)
	logKV[0] = figureOf(l.Figures, "kv")
	for i := len(l.Ranks) - 1; i >= 0; i-- { // the lowest rank of a stage last
		if g := l.Ranks[i].GlobalRank(lay.Parallel); g > 0 {
			if kv := figureOf(l.Ranks[i].Figures, "kv"); kv > 0 {
				logKV[g/lay.Parallel.Tensor%n] = kv
			}
		}
	}
	var bind *planner.Plan
	for i := range lay.Ranks {
		rp := &lay.Ranks[i].Plan
		s := stageOf(rp)
		if rp.Engine == nil || rp.Engine.Pool == nil || s >= n {
			return nil, nil
		}
		a := rp.Engine.Pool
		if t := ps.PlanTokens[s]; t > 0 && t <= a.Tokens {
			continue
		}
		ps.PlanTokens[s], ps.LogTokens[s] = a.Tokens, 0
		if a.PoolBytes > 0 {
			ps.LogTokens[s] = int64(float64(logKV[s]) * float64(a.Tokens) / float64(a.PoolBytes))
		}
		if bind == nil || a.Tokens < bind.Engine.Pool.Tokens {
			bind, ps.Plan = rp, s
		}
	}
	ps.Log = 0
	for s, t := range ps.LogTokens {
		if t == 0 {
			ps.Log = -1
			break
		}
		if t < ps.LogTokens[ps.Log] {
			ps.Log = s
		}
	}
	return ps, bind
}

func figureOf(fs []Figure, key string) planner.Bytes {
	for _, f := range fs {
		if f.Key == key {
			return f.Bytes
		}
	}
	return 0
}
