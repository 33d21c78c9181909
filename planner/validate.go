package planner

import (
	"math/bits"

	"github.com/vramplan/vramplan/internal/printf"
)

// Bounds on inputs. They are far beyond any real model or server and keep
// every product the planner forms inside int64. The structural bounds
// (layers, distinct windows, matrices, weight classes) also bound the work
// of a failure report: its few thousand trial plans each cost a step per
// window and per matrix, so a report costs milliseconds, not minutes, on
// any input that validates (docs/benchmarks.md, "worst-case report").
const (
	maxSeqLen     = 1 << 27 // 134M tokens
	maxBatchLimit = 1 << 20
	maxBudget     = 1 << 50 // 1 PiB
	maxDim        = 1 << 20
	maxHeads      = 1 << 16
	maxLayers     = 1 << 12 // the GGUF reader's bound on block_count; the catalog's deepest model has 94
	maxWindows    = 64      // distinct sliding windows; real models have one or two
	maxMatrices   = 1 << 10 // weight matrices (the readers list one per role: at most 17 in the catalog)
	maxClasses    = 64      // weight classes (the readers name seven)
	maxSpecK      = 64
	maxSnapshots  = 1 << 16
)

// Validate reports the first field of in that cannot be planned, as an
// *InputError naming it by its JSON path.
//
// Its checks are called directly, not from a list of functions: a call
// through a function value would move every caller's Input to the heap.
func Validate(in *Input) error {
	if err := validateLimits(in); err != nil {
		return err
	}
	if err := validateFeatures(in); err != nil {
		return err
	}
	if err := validateBudget(in); err != nil {
		return err
	}
	if err := validateCalibration(in); err != nil {
		return err
	}
	if err := validateModel(in); err != nil {
		return err
	}
	if err := validateServing(in); err != nil {
		return err
	}
	return validateParallel(in)
}

// bad is the InputError of field. It is not inlined: its error and its
// call of printf.Sprintf at each of the checks were code in a module
// under a size budget.
//
//go:noinline
func bad(field, format string, args ...any) error {
	return &InputError{Field: field, Msg: printf.Sprintf(format, args...)}
}

func inRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return bad(field, "%d is out of range [%d, %d]", v, lo, hi)
	}
	return nil
}

func validateLimits(in *Input) error {
	l := &in.Limits
	if err := inRange("limits.max_seq_len", l.MaxSeqLen, 1, maxSeqLen); err != nil {
		return err
	}
	if err := inRange("limits.max_batch", l.MaxBatch, 0, maxBatchLimit); err != nil {
		return err
	}
	if err := inRange("limits.max_prefill_tokens", l.MaxPrefillTokens, 0, maxSeqLen); err != nil {
		return err
	}
	if err := inRange("limits.block_tokens", l.BlockTokens, 0, 1<<16); err != nil {
		return err
	}
	if !l.KVDtype.Valid() {
		return bad("limits.kv_dtype", "unknown KV dtype %q (want one of %v)", l.KVDtype, KVDtypes)
	}
	return nil
}

func validateFeatures(in *Input) error {
	f := &in.Features
	if !f.WeightCache.Valid() {
		return bad("features.weight_cache", "unknown policy %q (want one of %v)", f.WeightCache, WeightCaches)
	}
	if err := inRange("features.spec_decode_k", f.SpecDecodeK, 0, maxSpecK); err != nil {
		return err
	}
	if err := inRange("features.residual_ring_tokens", f.ResidualRing, 0, maxSeqLen); err != nil {
		return err
	}
	return inRange("features.recurrent_snapshots", f.RecurrentSnapshots, 0, maxSnapshots)
}

func validateBudget(in *Input) error {
	if in.Budget < 0 || in.Budget > maxBudget {
		return bad("budget_bytes", "%d is out of range [0, 1 PiB]", in.Budget)
	}
	if in.Budget == 0 && in.Calibration.DeviceTotal <= 0 {
		return bad("budget_bytes", "no budget and no device total in the calibration")
	}
	return nil
}

func validateCalibration(in *Input) error {
	c := &in.Calibration
	fields := []struct {
		name string
		v    Bytes
	}{{"device_total_bytes", c.DeviceTotal}, {"context_bytes", c.Context}, {"context_eager_bytes", c.ContextEager},
		{"library_reserve_bytes", c.LibraryReserve}, {"library_reserve_eager_bytes", c.LibraryReserveEager},
		{"graph_exec_bytes", c.GraphExec}, {"vmm.granularity_bytes", c.VMM.Granularity}}
	for _, f := range fields {
		if f.v < 0 || f.v > maxBudget {
			return bad("calibration."+f.name, "%d is out of range [0, 1 PiB]", f.v)
		}
	}
	if g := c.VMM.Granularity; g != 0 && bits.OnesCount64(uint64(g)) != 1 {
		return bad("calibration.vmm.granularity_bytes", "%d is not a power of two", g)
	}
	return nil
}
