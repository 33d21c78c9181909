package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// spreadArgs is a vLLM plan whose KV tokens and weights are estimates.
var spreadArgs = []string{"plan", "--gpu", "h200", "--from-flags", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768"}

// TestPlanSpreadGolden holds vramplan plan's text of a vLLM plan, the
// ranges that real start-ups like it support included, to
// testdata/plan-vllm-spread.txt (-update rewrites it).
func TestPlanSpreadGolden(t *testing.T) {
	code, out, errs := runCLI(spreadArgs...)
	if code != 0 {
		t.Fatalf("vramplan %v = %d\n%s", spreadArgs, code, errs)
	}
	path := filepath.Join("testdata", "plan-vllm-spread.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("vramplan %v:\n%s\nwant (%s):\n%s", spreadArgs, out, path, want)
	}
}

// TestPlanSpreadJSON holds --json's spreads to the plan they range over
// and to the text's lines.
func TestPlanSpreadJSON(t *testing.T) {
	_, text, _ := runCLI(spreadArgs...)
	code, out, errs := runCLI(append(spreadArgs, "--json")...)
	if code != 0 {
		t.Fatalf("vramplan %v --json = %d\n%s", spreadArgs, code, errs)
	}
	var p planner.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	ss := p.Engine.Spreads
	if len(ss) != 2 || ss[0].Figure != "kv_tokens" || ss[1].Figure != "weights" {
		t.Fatalf("spreads = %+v, want kv_tokens and weights", ss)
	}
	if ss[0].Planned != p.Engine.Pool.Tokens || ss[1].Planned != int64(p.LoadedWeights()) {
		t.Errorf("spreads planned %d and %d, the plan's %d tokens and %d B", ss[0].Planned, ss[1].Planned, p.Engine.Pool.Tokens, p.LoadedWeights())
	}
	for _, s := range ss {
		if s.Runs < planner.MinRuns || s.LowValue > s.HighValue {
			t.Errorf("spread %+v", s)
		}
		if !strings.Contains(text, "\n  "+s.Line()+"\n") {
			t.Errorf("the text holds no line %q", s.Line())
		}
	}
}
