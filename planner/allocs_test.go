package planner

import "testing"

// TestPlanAllocs holds a plan's allocations to what they are: the plan is
// on every slider move of the calculator and every trial of the searches,
// and its allocations were half its time. A ceiling that fails names a
// change that allocates per plan again; lower a ceiling when a change
// frees more.
func TestPlanAllocs(t *testing.T) {
	for _, c := range []struct {
		input string
		max   float64
	}{
		{"b1-qwen3-4b-fp8", 3},
		{"engine-llamacpp-llama3-8b-q8", 8},
		{"engine-vllm-gemma3-12b-fp8", 5},
		{"engine-vllm-llama3-8b-h200", 3},
		{"engine-vllm-qwen2-vl-2b", 6}, // a vision tower, its dummy image and a stated release
		{"engine-sglang-qwen3-8b-h200", 3},
		{"layout-deepseek-v3-fp8-tp8-pp2-h200", 14},
	} {
		in := goldenInput(t, c.input)
		got := testing.AllocsPerRun(50, func() {
			if _, err := PlanMemory(in); err != nil {
				t.Fatal(err)
			}
		})
		if got > c.max {
			t.Errorf("PlanMemory(%s) makes %v allocations, want at most %v", c.input, got, c.max)
		}
	}
}
