package calc

import (
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestPoolLengthsCapped: under vLLM and SGLang every length the view shows
// — the longest request, the longest sequence at the batch, the chart's
// frontier — is at most the engine's max length (--max-model-len,
// --context-length), and the view's figures are the plan's (issue 27,
// point 5: 131,072 at a max-model-len of 16,384).
func TestPoolLengthsCapped(t *testing.T) {
	in := golden(t, "engine-vllm-llama3-8b-h200")
	for _, e := range []planner.EngineName{planner.EngineVLLM, planner.EngineSGLang} {
		for _, s := range []State{{Batch: 8, Len: 16384, Engine: e}, {Batch: 256, Len: 8192, Engine: e}, {Batch: 1, Len: 4096, Engine: e}} {
			v := Calculate(s, in.Model, in.Calibration)
			pin := planner.Input{Model: in.Model, Calibration: in.Calibration}
			s.Apply(&pin)
			p, err := planner.Report(pin)
			if err != nil {
				t.Fatalf("%+v: %v", s, err)
			}
			if v.MaxLen > s.Len || v.MaxLen != p.Capacity.MaxLenAtBatch || p.Engine.Pool.LongestRequest != s.Len {
				t.Errorf("%+v: longest at the batch %d (plan %d), longest request %d; want at most %d and the plan's", s, v.MaxLen,
					p.Capacity.MaxLenAtBatch, p.Engine.Pool.LongestRequest, s.Len)
			}
			if !strings.Contains(v.Answer, "the longest request "+Group(int64(s.Len))+" tokens") {
				t.Errorf("%+v: answer %q, want the longest request at the max length %d", s, v.Answer, s.Len)
			}
			for _, pt := range Frontier(pin) {
				if pt.MaxSeqLen > s.Len {
					t.Errorf("%+v: the chart's frontier has %d tokens at batch %d, past the max length", s, pt.MaxSeqLen, pt.Batch)
				}
				if pt.Batch == 1 && pt.MaxSeqLen != s.Len {
					t.Errorf("%+v: one request of the max length fits, yet the frontier has %d tokens at batch 1", s, pt.MaxSeqLen)
				}
			}
		}
	}
}
