package main

import (
	"fmt"
	"sort"

	"github.com/vramplan/vramplan/planner"
)

// rankPlan picks the plan one agent serves: a single-GPU plan as it is, or
// from a layout plan the plan of --rank. It refuses a layout without
// --rank, a rank outside the layout, and a rank plan (one rank's document
// on its own) that --rank does not name.
func rankPlan(p planner.Plan, rank int, path string) (planner.Plan, error) {
	switch {
	case p.Layout != nil && rank < 0:
		return p, fmt.Errorf("%s is a plan for %d GPUs (%s): --rank is required", path, p.Layout.GPUs, p.Layout.Parallel)
	case p.Layout != nil:
		rp, ok := p.RankPlanOf(rank)
		if !ok {
			return p, fmt.Errorf("--rank %d: the layout in %s has ranks 0-%d", rank, path, p.Layout.GPUs-1)
		}
		return rp, nil
	case p.Input.Rank != nil && rank >= 0 && !hasRank(p.Input.Rank.Ranks, rank):
		return p, fmt.Errorf("--rank %d: %s plans ranks %v of a %d-GPU layout", rank, path, p.Input.Rank.Ranks, p.Input.Rank.Layout.GPUs())
	case p.Input.Rank == nil && rank > 0:
		return p, fmt.Errorf("--rank %d: %s is a single-GPU plan (rank 0)", rank, path)
	}
	return p, nil
}

func hasRank(rs []int, r int) bool {
	i := sort.SearchInts(rs, r)
	return i < len(rs) && rs[i] == r
}

// announceRank says which rank of which layout the agent serves.
func announceRank(p *planner.Plan, rank int) string {
	r := p.Input.Rank
	if r == nil {
		return ""
	}
	return fmt.Sprintf("gpuagent: rank %d of %d (%s): stage %d, layers %d-%d, %s of weights, %d MiB of communication buffers planned for the engine\n",
		max(rank, r.Ranks[0]), r.Layout.GPUs(), r.Layout, r.Stage, r.Layers[0], r.Layers[1]-1, p.Weights, r.Comm.MiB())
}
