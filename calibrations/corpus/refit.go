package corpus

import (
	"math"

	"github.com/vramplan/vramplan/calibrations/refit"
	"github.com/vramplan/vramplan/planner"
)

// The refit of vLLM's estimated constants from the corpus. vLLM prints
// two of the charges the profile estimates in some of its logs: the
// memory outside torch (V0's profiling table, 0.10's "Actual usage is …")
// and the profiled activation peak. Each is fitted robustly
// (calibrations/refit.Median) from the runs that print it, and every
// complete vLLM run is planned again with the fitted figures in place of
// the estimates, through the profile's own overrides
// (serving.vllm.non_torch_bytes, activation_bytes), so that the KV
// residuals before and after are the profile's arithmetic, not a copy of
// it. Nothing is written: the result says what the profile would change.

// The plausible ranges of the two constants.
var (
	nonTorchRange   = refit.Range{Lo: 0, Hi: 8}    // GiB a rank: NCCL and cuBLAS buffers, at most a few GiB
	activationRange = refit.Range{Lo: 0.1, Hi: 10} // real peak over the estimate
)

// The profile's constants as the code states them (engine_vllm.go's
// charge: GiB*15/100, and vllmActivation's estimate, scaled by 1). The
// profile keeps them unexported; a test that plans with them in place of
// the estimates holds these to them (TestRefitCodeConstants).
const (
	CodeNonTorchGiB     = 0.15
	CodeActivationScale = 1
)

// VLLMRefit is the refit of vLLM's estimated constants.
type VLLMRefit struct {
	// NonTorch is the memory outside torch, GiB a rank (the code's 0.15);
	// ActivationScale the activation peak over the profile's estimate of
	// it (the code's 1: min(seqs, tokens) × vocab × 38 B + tokens ×
	// hidden × 4 B).
	NonTorch, ActivationScale refit.Fit
	// Runs are the complete vLLM runs, planned with the code's constants
	// and with the refit's.
	Runs []RefitRun
	// Within and WithinAfter count the runs whose KV tokens are within
	// Tolerance before and after.
	Within, WithinAfter int
}

// RefitRun is one complete run's KV residual, (plan − real) / real,
// with the code's constants and with the refit's.
type RefitRun struct {
	ID            string
	Band          string
	Before, After float64
}

// RefitVLLM refits vLLM's estimated constants from es, planned from under
// root (the repository root), and plans every complete run again with them.
func RefitVLLM(es []Entry, root string) VLLMRefit {
	var nonTorch, activation []refit.Sample
	for _, r := range vllmRows(es, root) {
		if r.Err != nil || !r.Entry.Outcome.Started() {
			continue
		}
		if r.NonTorch.Known {
			nonTorch = append(nonTorch, refit.Sample{Name: r.Entry.ID, Y: r.NonTorch.Real, Tol: 0.005})
		}
		if r.Activation.Known && r.Activation.Plan > 0 {
			activation = append(activation, refit.Sample{Name: r.Entry.ID, Y: r.Activation.Real / r.Activation.Plan, Tol: 0.005 / r.Activation.Plan})
		}
	}
	f := VLLMRefit{
		NonTorch:        refit.Median(nonTorch, nonTorchRange, CodeNonTorchGiB),
		ActivationScale: refit.Median(activation, activationRange, CodeActivationScale),
	}
	f.Replan(es, root)
	return f
}

// Replan plans every complete vLLM run of es with the code's constants
// and with f's (NonTorch.Value and ActivationScale.Value), into f.Runs.
func (f *VLLMRefit) Replan(es []Entry, root string) {
	f.Runs, f.Within, f.WithinAfter = nil, 0, 0
	rows := vllmRows(es, root)
	for i := range rows {
		if rows[i].complete() {
			f.add(&rows[i], root)
		}
	}
}

func vllmRows(es []Entry, root string) []Row {
	var rows []Row
	for i := range es {
		if es[i].Engine == EngineVLLM {
			rows = append(rows, Compare(&es[i], root))
		}
	}
	return rows
}

// add plans r's entry again with f's constants and counts both residuals.
func (f *VLLMRefit) add(r *Row, root string) {
	after := compareWith(r.Entry, root, func(in *planner.Input) {
		o := &in.Serving.VLLM
		if o.NonTorchBytes == 0 {
			o.NonTorchBytes = bytesOf(f.NonTorch.Value)
		}
		// One override sets every rank's activation, and a pipeline's
		// stages differ in it (the last warms the sampler up): a pipeline
		// keeps the estimate, stage by stage.
		if o.ActivationBytes == 0 && in.Parallel.Pipeline <= 1 {
			o.ActivationBytes = bytesOf(r.Activation.Plan * f.ActivationScale.Value)
		}
	})
	run := RefitRun{ID: r.Entry.ID, Band: r.Band.Name, Before: r.KVTokens.Residual(), After: math.NaN()}
	if after.Err == nil {
		run.After = after.KVTokens.Residual()
	}
	f.Runs = append(f.Runs, run)
	f.Within += boolInt(math.Abs(run.Before) <= Tolerance)
	f.WithinAfter += boolInt(math.Abs(run.After) <= Tolerance)
}

func bytesOf(gib float64) planner.Bytes { return planner.Bytes(math.Round(gib * float64(planner.GiB))) }
