package planner

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestWarnings checks that each feature the plan cannot charge, or charges
// nothing for, says so, and that a plan without one says nothing.
func TestWarnings(t *testing.T) {
	data, err := os.ReadFile("testdata/golden/b1-qwen3-4b-fp8.input.json")
	if err != nil {
		t.Fatal(err)
	}
	base, err := ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := Report(base); len(p.Warnings) != 0 {
		t.Fatalf("the plain input warns: %q", p.Warnings)
	}
	for _, tt := range []struct {
		name   string
		change func(*Input)
		want   string // "" for no warning
	}{
		{"length past the trained context", func(in *Input) { in.Model.MaxContext = 1024 }, "trained context of 1024"},
		{"vision without a tower", func(in *Input) { in.Model.Vision, in.Features.Vision = nil, true }, "no vision tower"},
		{"a weight cache without matrices", func(in *Input) {
			in.Model.Weights.Matrices, in.Features.WeightCache = nil, WeightCacheNVFP4
		}, "no GEMM matrices"},
		{"graphs, their size unmeasured", func(in *Input) {
			in.Features.CUDAGraphs, in.Calibration.GraphExec = true, 0
		}, "has not measured graph_exec_bytes"},
		{"graphs, their size measured", func(in *Input) {
			in.Features.CUDAGraphs, in.Calibration.GraphExec = true, 3*MiB
		}, ""},
	} {
		in := base
		tt.change(&in)
		p, err := Report(in)
		var f *Failure
		if err != nil && !errors.As(err, &f) {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := strings.Join(p.Warnings, "\n")
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: warnings %q, want one containing %q", tt.name, got, tt.want)
		}
	}
}
