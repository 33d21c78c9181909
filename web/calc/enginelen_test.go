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

// TestBatchHint: under an engine, the batch field's hint names the
// engine's default batch, and a batch given is not called the default
// (issue 27 §6: "the engine's own default, 8 sequences" under vLLM at
// batch 8, whose default is max_num_seqs 256 or 1024).
func TestBatchHint(t *testing.T) {
	in := golden(t, "engine-vllm-llama3-8b-h200")
	for _, e := range []planner.EngineName{planner.EngineVLLM, planner.EngineLlamaCpp} {
		def := Calculate(State{Len: 4096, Engine: e}, in.Model, in.Calibration)
		_, n, _ := strings.Cut(def.Subject, "batch 0: the engine's default, ")
		n, _, _ = strings.Cut(n, " ")
		if n == "" || def.BatchHint != "0 or empty: the engine's own default, "+n+" sequences." {
			t.Errorf("%s at batch 0: hint %q, subject %q; want the default batch named", e, def.BatchHint, def.Subject)
		}
		for _, b := range []int{1, 8} {
			v := Calculate(State{Batch: b, Len: 4096, Engine: e}, in.Model, in.Calibration)
			if strings.Contains(v.BatchHint, "default, "+Group(int64(b))+" sequence") {
				t.Errorf("%s at batch %d: hint %q calls the batch given the engine's default", e, b, v.BatchHint)
			}
		}
	}
}
