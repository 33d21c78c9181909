package planner

import (
	"os"
	"testing"
)

// TestGraphPoolSource: a CUDA-graph pool whose graphs the calibration has
// not measured is charged nothing and says it is unmeasured, not
// calibrated, as its warning says; a measured size is calibrated.
func TestGraphPoolSource(t *testing.T) {
	data, err := os.ReadFile("testdata/golden/b1-qwen3-4b-fp8.input.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	in.Features.CUDAGraphs = true
	for exec, want := range map[Bytes]Source{0: SourceUnmeasured, 3 * MiB: SourceCalibrated} {
		in.Calibration.GraphExec = exec
		p, _ := Report(in)
		var got *Item
		for i := range p.Items {
			if p.Items[i].Key == "cuda_graph_pool" {
				got = &p.Items[i]
			}
		}
		if got == nil || got.Source != want || (exec == 0) != (got.Bytes == 0) {
			t.Errorf("graph_exec_bytes %d: cuda_graph_pool item %+v, want source %q", exec, got, want)
		}
	}
}
