package logcheck

import (
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// Binding says which pipeline stage's KV cache binds in the plan and in
// the log of a pool row of a plan of stages (PoolRow.Stages), "" for one
// of a single stage. The page's log box says the same (logcheck.js,
// binding).
func Binding(pr *enginelog.PoolRow) string {
	ps := pr.Stages
	if ps == nil {
		return ""
	}
	s := printf.Sprintf("The engine sizes every rank's KV cache to the stage with the fewest tokens: in the plan stage %d (%s)", ps.Plan, stageTokens(ps.PlanTokens, ps.Plan))
	var stated []string
	for i, t := range ps.LogTokens {
		if t > 0 {
			stated = append(stated, printf.Sprintf("%d", i))
		}
	}
	switch {
	case ps.Log >= 0:
		s += printf.Sprintf(", in the log stage %d (its KV cache memory at the plan's bytes per token: %s)", ps.Log, stageTokens(ps.LogTokens, ps.Log))
	case len(stated) == 0:
		s += "; the log states no stage's KV cache memory"
	default:
		s += printf.Sprintf("; the log states the KV cache memory of stage %s only", strings.Join(stated, ", "))
	}
	return s + "."
}

// stageTokens writes the tokens of stage b, then the other stages'.
func stageTokens(ts []int64, b int) string {
	s := printf.Sprintf("%d tokens", ts[b])
	for i, t := range ts {
		if i != b && t > 0 {
			s += printf.Sprintf("; stage %d %d", i, t)
		}
	}
	return s
}
