package planner

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// FuzzParseInput feeds arbitrary bytes to the input parser and plans what
// it accepts: no panic, no total outside [0, MaxBytes], an error that is an
// *InputError or a *Failure. Its seeds are kilobyte documents, which Go's
// minimizer takes up to -fuzzminimizetime to shrink, executing nothing
// else meanwhile: scripts/fuzz.sh bounds it (a run once stood at 11
// executions for 57 s; no one input took over 116 ms).
func FuzzParseInput(f *testing.F) {
	for _, path := range []string{"testdata/golden/a43-example.input.json", "testdata/golden/b1-qwen3-4b-fp8.input.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"limits":{"max_seq_len":-1}}`))
	f.Add([]byte(`{"model":{"layers":[{"count":1e9}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			return
		}
		checkReport(t, in)
	})
}

// FuzzLimits plans a fixed model at arbitrary, often absurd, numbers.
func FuzzLimits(f *testing.F) {
	f.Add(int64(8), int64(4096), int64(32607<<20), int64(16), int64(0))
	f.Add(int64(65536), int64(10_000_000), int64(16<<40), int64(1), int64(64))
	f.Add(int64(-1), int64(0), int64(-5), int64(-16), int64(-1))
	f.Add(int64(1<<40), int64(1<<62), int64(1<<62), int64(1<<40), int64(1<<40))
	base := fuzzBase(f)
	f.Fuzz(func(t *testing.T, batch, seqLen, budget, block, specK int64) {
		in := base
		in.Limits.MaxBatch, in.Limits.MaxSeqLen, in.Limits.BlockTokens = clampInt(batch), clampInt(seqLen), clampInt(block)
		in.Budget, in.Features.SpecDecodeK = Bytes(budget), clampInt(specK)
		checkReport(t, in)
	})
}

func clampInt(v int64) int { return int(max(min(v, 1<<40), -(1 << 40))) }

func fuzzBase(f *testing.F) Input {
	data, err := os.ReadFile("testdata/golden/a43-example.input.json")
	if err != nil {
		f.Fatal(err)
	}
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		f.Fatal(err)
	}
	in.Model.Layers = append(in.Model.Layers, LayerGroup{Count: 4, Layer: Layer{Kind: LayerSliding, KVHeads: 8, KeyDim: 256, ValueDim: 256, Window: 1024}})
	in.Measured = Measured{}
	return in
}

func checkReport(t *testing.T, in Input) {
	p, err := Report(in)
	var ie *InputError
	var fe *Failure
	switch {
	case errors.As(err, &ie):
		return
	case err != nil && !errors.As(err, &fe):
		t.Fatalf("Report error %T %v, want *InputError or *Failure", err, err)
	}
	if p.Total < 0 || p.Total > MaxBytes || p.KV.Bytes < 0 {
		t.Fatalf("Report total %d, KV %d: outside [0, MaxBytes]", p.Total, p.KV.Bytes)
	}
	if p.Fits == (err != nil) {
		t.Fatalf("Report fits %v with error %v", p.Fits, err)
	}
}

// TestAbsurdInputs: the extremes plan or fail cleanly.
func TestAbsurdInputs(t *testing.T) {
	base := fuzzBase(&testing.F{})
	for _, tc := range []struct {
		name          string
		batch, seqLen int
		budget        Bytes
		field         string // "" when it must plan
	}{
		{"10M tokens", 8, 10_000_000, 0, ""},
		{"batch 65536", 65536, 4096, 0, ""},
		{"16 TiB", 8, 4096, 16 * TiB, ""},
		{"all at once", 65536, 10_000_000, 16 * TiB, ""},
		{"zero length", 8, 0, 0, "limits.max_seq_len"},
		{"negative length", 8, -4096, 0, "limits.max_seq_len"},
		{"negative batch", -1, 4096, 0, "limits.max_batch"},
		{"negative budget", 8, 4096, -1, "budget_bytes"},
		{"2^62 tokens", 8, 1 << 62, 0, "limits.max_seq_len"},
	} {
		in := base
		in.Limits.MaxBatch, in.Limits.MaxSeqLen, in.Budget = tc.batch, tc.seqLen, tc.budget
		p, err := Report(in)
		var ie *InputError
		if tc.field != "" {
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Errorf("%s: Report error = %v, want an InputError on %s", tc.name, err, tc.field)
			}
			continue
		}
		if errors.As(err, &ie) || p.Total <= 0 || p.Total >= MaxBytes {
			t.Errorf("%s: Report = total %d, error %v; want a plan", tc.name, p.Total, err)
		}
	}
}
