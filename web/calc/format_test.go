package calc

import (
	"math"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 32607: "32,607", -1234: "-1,234",
		-999: "-999", 1048576: "1,048,576", 143771: "143,771", math.MaxInt64: "9,223,372,036,854,775,807",
		math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSize(t *testing.T) {
	for mib, want := range map[int64]string{0: "0 MiB", 8192: "8,192 MiB", 10239: "10,239 MiB", 10240: "10,240 MiB (10 GiB)",
		143771: "143,771 MiB (140.4 GiB)", -20480: "-20,480 MiB (-20 GiB)"} {
		if got := Size(mib); got != want {
			t.Errorf("Size(%d) = %q, want %q", mib, got, want)
		}
	}
}

// TestChartPastMillion: a frontier past 1M tokens rescales the y axis to
// the power of 16 that holds it, with a tick there, instead of drawing it
// flat along a top labelled 1M; a frontier within 1M keeps the usual axis.
func TestChartPastMillion(t *testing.T) {
	m := planner.Model{ID: "m", HiddenSize: 2048, VocabSize: 32000, QueryHeads: 16, MaxContext: 2 << 20,
		Layers: []planner.LayerGroup{{Count: 4, Layer: planner.Layer{Kind: planner.LayerFull, KVHeads: 4, KeyDim: 128, ValueDim: 128}}}}
	c := planner.Calibration{ID: "c", DeviceTotal: 80 * planner.GiB, Context: 500 * planner.MiB}
	v := Calculate(State{Batch: 8, Len: 4096}, m, c)
	longest, _ := planner.MaxSeqLen(planner.Input{Model: m, Calibration: c, Limits: planner.Limits{MaxBatch: 1, MaxSeqLen: 4096}})
	if longest <= LenMax || v.Chart.Top != 16<<20 {
		t.Fatalf("batch 1 fits %d tokens: chart top %d, want 16M", longest, v.Chart.Top)
	}
	var labels []string
	for _, tk := range v.Chart.YTicks {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, " ") != "256 4K 64K 1M 16M" || v.Chart.YTicks[4].At != "10.0" {
		t.Errorf("y ticks %+v, want 256 to 16M with 16M at the top", v.Chart.YTicks)
	}
	first := strings.Fields(strings.TrimPrefix(v.Chart.Path, "M"))[1]
	if want := num(yOf(longest, 16<<20)); first != want || first == "10.0" {
		t.Errorf("frontier at batch 1 drawn at y %s, want %s (to scale, below the top)", first, want)
	}
	if v.Chart.TrainedLabel != "trained context 2,097,152" {
		t.Errorf("a 2M trained context past the usual top is not marked: %q", v.Chart.TrainedLabel)
	}
	in := golden(t, "b1-qwen3-4b-fp8")
	if v := Calculate(State{Batch: 8, Len: 4096}, in.Model, in.Calibration); v.Chart.Top != LenMax || len(v.Chart.YTicks) != 4 {
		t.Errorf("a frontier within 1M: top %d, ticks %+v", v.Chart.Top, v.Chart.YTicks)
	}
}
