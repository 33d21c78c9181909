package calc

// This file is llama.cpp's tensor split (-ts) in the calculator: the `ts`
// key, one share per device ("3,1"), planned only under the llama.cpp
// profile and only for a layout of more than one GPU, where it is the
// planner's parallel.tensor_split. Elsewhere it stays in the state, as the
// seed's features do under another engine, so switching back keeps it.
//
// Its split mode (-sm) is the `sm` key, layer or tensor: under llama.cpp
// it says how the layout's GPUs (tp × pp) split the model, moving them all
// to pp (-sm layer) or to tp (-sm tensor, planner/engine_llamacpp_tensor_split.go). It is
// read, never written: the state keeps tp and pp, from which SplitMode
// tells the mode again.

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// maxShare is the largest share the planner takes (validateTensorSplit).
const maxShare = 1e6

// parseSplit reads the ts key: shares separated by ',' or '/', as
// llama.cpp's common/arg.cpp splits -ts, each a positive number up to
// 1e6, at most MaxParallel of them; the state holds them written back
// with ',' ("3,1"). Under llama.cpp with more than one GPU there must be
// one share per GPU.
func parseSplit(q values, s *State) error {
	v := strings.TrimSpace(q.get("ts"))
	if v == "" {
		return nil
	}
	ts, err := splitShares(v)
	if err != nil {
		return &FieldError{"ts", err.Error()}
	}
	s.TS = joinShares(ts)
	return s.checkSplit()
}

// splitShares reads "3,1" or "3/1" into shares.
func splitShares(v string) ([]float64, error) {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '/' })
	if len(parts) == 0 || len(parts) > MaxParallel {
		return nil, errorf("%q: want one share per GPU, 1 to %d of them (\"3,1\")", v, MaxParallel)
	}
	ts := make([]float64, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, errorf("share %d, %q, is not a number", i, strings.TrimSpace(p))
		}
		if !(x > 0) || math.IsInf(x, 0) || x > maxShare {
			return nil, errorf("share %d is %s: want a positive number up to 1e6", i, strings.TrimSpace(p))
		}
		ts[i] = x
	}
	return ts, nil
}

func joinShares(ts []float64) string {
	var b strings.Builder
	for i, x := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return b.String()
}

// SplitShown reports whether the page shows the tensor-split field: when
// the split is planned, under llama.cpp with more than one GPU.
func (s State) SplitShown() bool { return s.splitPlanned() }

func (s State) splitPlanned() bool {
	p := s.Engine.Profile()
	return p != nil && p.TensorSplit && s.GPUs() > 1
}

// tensorSplit is the planner's parallel.tensor_split of s: nil when it is
// not planned (the planner then gives each device an equal share).
func (s State) tensorSplit() []float64 {
	if !s.splitPlanned() || s.TS == "" {
		return nil
	}
	ts, _ := splitShares(s.TS) // checkSplit refuses a bad one before planning
	return ts
}

// checkSplit refuses a tensor split that ParseQuery would refuse, for a
// state that did not come from a query (a caller's JSON).
func (s State) checkSplit() error {
	if s.TS == "" {
		return nil
	}
	if _, err := splitShares(s.TS); err != nil {
		return &FieldError{"ts", err.Error()}
	}
	if n := s.GPUs(); s.splitPlanned() && len(s.tensorSplit()) != n {
		return &FieldError{"ts", printf.Sprintf("%d shares for the layout's %d GPUs: give one share per GPU, "+
			"or none for equal shares", len(s.tensorSplit()), n)}
	}
	return nil
}

func errorf(format string, args ...any) error { return errors.New(printf.Sprintf(format, args...)) }

// parseSplitMode reads the sm key: under llama.cpp with more than one GPU,
// layer puts the layout's tp × pp GPUs in pipeline stages (-sm layer),
// tensor in one tensor-parallel group (-sm tensor). Under another engine,
// or on one GPU, a good value changes nothing. row is refused with
// llama.cpp's reason, as --from-flags refuses it.
func parseSplitMode(q values, s *State) error {
	v := strings.ToLower(strings.TrimSpace(q.get("sm")))
	switch v {
	case "", "layer", "tensor":
	case "row":
		return &FieldError{"sm", "row: " + planner.LlamaCppVersion + " has no row split on CUDA (removed by #24216); " +
			"choose layer or tensor"}
	default:
		return &FieldError{"sm", printf.Sprintf("%q is not a split mode (layer or tensor)", q.get("sm"))}
	}
	if v == "" || !s.splitPlanned() {
		return nil
	}
	n := max(s.TP, 1) * max(s.PP, 1)
	s.TP, s.PP = 0, n
	if v == "tensor" {
		s.TP, s.PP = n, 0
	}
	return nil
}

// SplitMode is llama.cpp's -sm for the state's layout: tensor when it is
// tensor-parallel, else layer.
func (s State) SplitMode() string {
	if s.TP > 1 {
		return "tensor"
	}
	return "layer"
}
