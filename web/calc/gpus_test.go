package calc

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func fit(id, label string, gib, gpus int, headroom planner.Bytes) planner.GPUFit {
	return planner.GPUFit{Calibration: id, GPU: id, Label: label, DeviceTotal: planner.Bytes(gib) * planner.GiB, GPUs: gpus, Headroom: headroom}
}

func TestGPUFilterApply(t *testing.T) {
	fits := []planner.GPUFit{ // planner.GPUs' order
		fit("b", planner.CalibrationMeasured, 80, 1, 5), fit("a", planner.CalibrationEstimated, 141, 1, 2),
		fit("c", planner.CalibrationEstimated, 24, 4, 9), fit("z", planner.CalibrationEstimated, 16, 0, 0),
	}
	for _, tc := range []struct {
		f    GPUFilter
		want string
	}{
		{GPUFilter{}, "bacz"},
		{GPUFilter{Sort: "gpus"}, "bacz"},
		{GPUFilter{Sort: "memory"}, "abcz"},
		{GPUFilter{Sort: "headroom"}, "cbaz"},
		{GPUFilter{Sort: "gpu"}, "abcz"},
		{GPUFilter{MinMemory: 24 * planner.GiB}, "bac"},
		{GPUFilter{Label: planner.CalibrationEstimated, Sort: "memory"}, "acz"},
		{GPUFilter{Label: planner.CalibrationCommunity}, ""},
	} {
		got := ""
		for _, f := range tc.f.Apply(fits) {
			got += f.Calibration
		}
		if got != tc.want {
			t.Errorf("%+v.Apply = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestGPUFilterCheck(t *testing.T) {
	for _, tc := range []struct {
		f   GPUFilter
		key string
	}{
		{GPUFilter{}, ""}, {GPUFilter{Sort: "kv", Label: "measured"}, ""},
		{GPUFilter{Sort: "speed"}, "gsort"}, {GPUFilter{Label: "guessed"}, "glabel"}, {GPUFilter{MinMemory: -1}, "gmin"},
	} {
		err := tc.f.Check()
		fe, _ := err.(*FieldError)
		if (tc.key == "") != (err == nil) || fe != nil && fe.Key != tc.key {
			t.Errorf("%+v.Check() = %v, want an error naming %q", tc.f, err, tc.key)
		}
	}
}

func TestLayoutText(t *testing.T) {
	for _, tc := range []struct {
		gpus, tp, pp int
		want         string
	}{{0, 0, 0, "none"}, {1, 1, 1, "1 GPU"}, {4, 4, 1, "TP 4"}, {3, 1, 3, "PP 3"}, {16, 8, 2, "TP 8 × PP 2"}} {
		f := planner.GPUFit{GPUs: tc.gpus, Parallel: planner.Parallel{Tensor: tc.tp, Pipeline: tc.pp}}
		if got := LayoutText(&f); got != tc.want {
			t.Errorf("LayoutText(%d GPUs, tp %d, pp %d) = %q, want %q", tc.gpus, tc.tp, tc.pp, got, tc.want)
		}
	}
}

// TestGPURowLink checks that a row's link is the state on the row's GPU in
// its layout at the GPU's own total, the rest of the state kept.
func TestGPURowLink(t *testing.T) {
	s := State{Model: "m", GPU: "other", Len: 8192, Batch: 4, Budget: 30 * planner.GiB, TP: 3, EP: 2, DP: 2, TS: "1,2", GSort: "kv"}
	f := planner.GPUFit{Calibration: "c", GPUs: 16, Parallel: planner.Parallel{Tensor: 8, Pipeline: 2}}
	var r GPURow
	gpuRow(&s, &f, &r)
	want := State{Model: "m", GPU: "c", Len: 8192, Batch: 4, TP: 8, PP: 2, GSort: "kv"}
	if r.Query != want.Encode() || r.Href != "?"+want.Encode() {
		t.Errorf("the row links to %q, want %q", r.Query, want.Encode())
	}
}

// TestHeadroomText checks the headroom cell: a size, or "—" with its note
// when the engine's KV pool takes what the budget leaves, and nothing for
// a row no layout serves.
func TestHeadroomText(t *testing.T) {
	for _, tt := range []struct {
		f          planner.GPUFit
		want, note string
	}{
		{planner.GPUFit{GPUs: 1, Headroom: 2048 * planner.MiB}, "2,048 MiB", ""},
		{planner.GPUFit{GPUs: 2, PoolTakesRest: true}, "—", "The engine's KV pool takes what its memory fraction leaves: the KV tokens are what this GPU has to spare."},
		{planner.GPUFit{GPUs: 0, PoolTakesRest: true}, "", ""},
	} {
		var r GPURow
		s := State{Model: "m", Len: 8192}
		gpuRow(&s, &tt.f, &r)
		if r.Headroom != tt.want || r.HeadroomNote != tt.note {
			t.Errorf("gpuRow(%+v): headroom %q, note %q; want %q, %q", tt.f, r.Headroom, r.HeadroomNote, tt.want, tt.note)
		}
	}
}
