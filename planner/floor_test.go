package planner

import (
	"errors"
	"testing"
)

// TestAutomaticBatchAndAdmissionFloor is D8: with max_batch 0 the KV pool
// takes the residual in whole sequences; when not one sequence of
// max_seq_len fits, the plan fails with the admission floor, even where
// the charges without KV would fit.
func TestAutomaticBatchAndAdmissionFloor(t *testing.T) {
	in := fuzzBase(&testing.F{})
	in.Limits.MaxBatch, in.Limits.MaxSeqLen = 0, 4096
	want, err := MaxBatch(in)
	if err != nil || want < 1 {
		t.Fatalf("MaxBatch = %d, %v; want a batch", want, err)
	}
	p, err := PlanMemory(in)
	if err != nil || !p.Fits || p.KV.Blocks != int64(want)*256 {
		t.Errorf("PlanMemory(auto) = fits %v, %d blocks, %v; want %d sequences of 256 blocks", p.Fits, p.KV.Blocks, err, want)
	}
	in.Limits.MaxSeqLen = 1 << 20 // one sequence needs 384 GiB of KV
	p, err = PlanMemory(in)
	var f *Failure
	if !errors.As(err, &f) || f.Reason != FailureAdmissionFloor || p.Fits {
		t.Fatalf("PlanMemory(auto, 1M tokens) = fits %v, %v; want the admission floor", p.Fits, err)
	}
	if p, _ := Report(in); len(p.Levers) == 0 || p.Levers[0].Knob != KnobMaxSeqLen {
		t.Errorf("Report(auto, 1M tokens) levers = %+v, want max_seq_len first", p.Levers)
	}
}
