package planner

import "testing"

// BenchmarkLayoutTP8PP2 is one plan of DeepSeek-V3 FP8 at TP8 × PP2 × EP8
// on H200s: 16 GPUs, two distinct ranks.
func BenchmarkLayoutTP8PP2(b *testing.B) {
	in := benchInput(b, "layout-deepseek-v3-fp8-tp8-pp2-h200")
	for b.Loop() {
		if _, err := PlanMemory(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMinGPUs is the fewest-H200s search for DeepSeek-V3 FP8.
func BenchmarkMinGPUs(b *testing.B) {
	in := benchInput(b, "layout-deepseek-v3-fp8-one-h200")
	for b.Loop() {
		if c, err := MinGPUs(in); err != nil || c.GPUs == 0 {
			b.Fatal(c, err)
		}
	}
}
