package planner

import (
	"strings"
	"testing"
)

// TestVLLMGraphsCaptureOptions holds the graph count to
// VllmConfig._set_cudagraph_sizes' rules for each capture option.
func TestVLLMGraphsCaptureOptions(t *testing.T) {
	list := func(s ...int) *[]int { return &s }
	for _, tc := range []struct {
		name          string
		o             VLLMOptions
		seqs, batched int
		want          int64
	}{
		// 1, 2, 4, 8…248 (31), 256…512 (17): 51 piecewise; 35 full up to 256.
		{"default", VLLMOptions{}, 256, 8192, 51 + 35},
		{"default, few batched tokens", VLLMOptions{}, 256, 64, 11 + 11},
		{"max size 64", VLLMOptions{MaxCaptureSize: 64}, 256, 8192, 11 + 11},
		{"max size over the batched tokens", VLLMOptions{MaxCaptureSize: 512}, 256, 128, 19 + 19},
		{"a list", VLLMOptions{CaptureSizes: list(1, 2, 4, 8, 16, 32, 64)}, 256, 2048, 7 + 7},
		{"a list, duplicates once", VLLMOptions{CaptureSizes: list(8, 1, 8, 2)}, 256, 2048, 3 + 3},
		{"a list, over the batched tokens and max_num_seqs", VLLMOptions{CaptureSizes: list(1, 16, 64, 4096)}, 32, 2048, 3 + 2},
	} {
		if got := VLLMGraphs(&tc.o, tc.seqs, tc.batched); got != tc.want {
			t.Errorf("%s: VLLMGraphs = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestVLLMCaptureSizesBounds: capture options out of range are refused by
// name, and a long list is refused before a plan counts it.
func TestVLLMCaptureSizesBounds(t *testing.T) {
	long := make([]int, maxCaptureSizes+1)
	for i := range long {
		long[i] = i + 1
	}
	for _, tc := range []struct {
		o     VLLMOptions
		field string
	}{
		{VLLMOptions{MaxCaptureSize: -1}, "max_cudagraph_capture_size"},
		{VLLMOptions{MaxCaptureSize: maxBatchLimit + 1}, "max_cudagraph_capture_size"},
		{VLLMOptions{CaptureSizes: &[]int{}}, "cudagraph_capture_sizes"},
		{VLLMOptions{CaptureSizes: &[]int{1, 0}}, "cudagraph_capture_sizes"},
		{VLLMOptions{CaptureSizes: &long}, "cudagraph_capture_sizes"},
	} {
		err := validCaptureSizes(&tc.o)
		if err == nil || !strings.Contains(err.Error(), "serving.vllm."+tc.field) {
			t.Errorf("validCaptureSizes(%+v) = %v, want an error naming serving.vllm.%s", tc.o, err, tc.field)
		}
	}
}
