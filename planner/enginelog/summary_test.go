package enginelog

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestVLLMSummary reads V1's start report in both its wordings: the
// device's total, the utilization, and the charges beside the weights.
func TestVLLMSummary(t *testing.T) {
	figure := func(l Log, key string) planner.Bytes {
		for _, f := range l.Figures {
			if f.Key == key {
				return f.Bytes
			}
		}
		return -1
	}
	for _, c := range []struct {
		log                      string
		total                    float64
		util                     float64
		consumed, peak, nonTorch float64 // GiB; −1: not printed
	}{
		{"vllm-0.29.0-qwen3-14b-l40s.log", 44.39, 0.92, 27.79, 1.99, -1},
		{"vllm-0.10.2-llava-v1.6-mistral-7b-79g.log", 79.19, 0.9, -1, 1.97, 0.07},
		{"vllm-0.27.1-qwen2.5-0.5b-rtx4090-a.log", 23.99, 0.92, 1.23, 0.31, -1},
	} {
		l := corpusLog(t, c.log)
		if l.Settings == nil || !near(l.Settings.GPUTotal, c.total) {
			t.Errorf("%s: device total %v, want %v GiB", c.log, l.Settings, c.total)
		}
		if l.Pool == nil || l.Pool.Utilization != c.util {
			t.Errorf("%s: utilization %+v, want %v", c.log, l.Pool, c.util)
		}
		for _, f := range []struct {
			key  string
			want float64
		}{{"consumed", c.consumed}, {"peak_in_budget", c.peak}, {"non_torch", c.nonTorch}} {
			got := figure(l, f.key)
			if f.want < 0 && got >= 0 || f.want >= 0 && !near(got, f.want) {
				t.Errorf("%s: %s = %v, want %v GiB", c.log, f.key, got, f.want)
			}
		}
	}
}

func near(b planner.Bytes, gib float64) bool {
	d := float64(b)/float64(planner.GiB) - gib
	return d < 0.006 && d > -0.006
}

// TestPlannedSummed: the start report's figures are set against the sum of
// the plan's items they hold, and only they are left out of a log's sum.
func TestPlannedSummed(t *testing.T) {
	p := &planner.Plan{Items: []planner.Item{{Key: "weights", Bytes: 100}, {Key: "non_torch", Bytes: 10}, {Key: "communication", Bytes: 5},
		{Key: "sampler_state", Bytes: 3}, {Key: "activation_peak", Bytes: 20}, {Key: "cuda_graphs", Bytes: 7}, {Key: "kv", Bytes: 1000}}}
	for key, want := range map[string]planner.Bytes{"consumed": 118, "peak_in_budget": 27, "weights": 100, "non_torch": 10} {
		if got := Planned(p, key); got != want {
			t.Errorf("Planned(%s) = %d, want %d", key, got, want)
		}
		if Summed(key) != (key == "consumed" || key == "peak_in_budget") {
			t.Errorf("Summed(%s) = %v", key, Summed(key))
		}
	}
}

// TestVLLMNoCustomAllReduce: a log whose ranks say the custom all-reduce is
// off is planned without its buffers.
func TestVLLMNoCustomAllReduce(t *testing.T) {
	for log, want := range map[string]bool{"vllm-0.19.0-qwen2.5-72b-l40s-tp4.log": true, "vllm-0.29.0-qwen3-14b-l40s.log": false} {
		l := corpusLog(t, log)
		var in planner.Input
		if err := vllmInput(&l, &in); err != nil {
			t.Fatal(err)
		}
		if in.Parallel.NoCustomAllReduce != want {
			t.Errorf("%s: NoCustomAllReduce %v, want %v", log, in.Parallel.NoCustomAllReduce, want)
		}
	}
}
