package enginelog

import (
	"os"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

func fixture(t *testing.T, name string) Log {
	t.Helper()
	data, err := os.ReadFile("testdata/logs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// TestInputOfLog plans what published logs state: the TP 4 run whose four
// workers printed lines is planned as four ranks and set against rank 0's
// plan, the log's utilization is used in place of the default, and V0's
// request length is its concurrency line's.
func TestInputOfLog(t *testing.T) {
	m, err := catalog.Lookup("llama-3.3-70b-instruct-fp8")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrations.Lookup("est-rtx3090")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		log    string
		tp     int
		util   float64
		maxLen int
	}{
		{"vllm-v1-0.21-tp4-rtx3090.log", 4, 0.92, m.MaxContext},
		{"vllm-v1-0.18-enginecore.log", 0, 0.70, 131072},
		{"vllm-v0-rtx3090-llama31-8b.log", 0, 0.90, 20000},
	} {
		l := fixture(t, c.log)
		in, err := l.Input(m, cal)
		if err != nil {
			t.Fatalf("%s: %v", c.log, err)
		}
		if in.Parallel.Tensor != c.tp || in.Serving.VLLM.GPUMemoryUtilization != c.util || in.Limits.MaxSeqLen != c.maxLen {
			t.Errorf("%s: Input = TP %d, utilization %v, max_model_len %d; want %d, %v, %d", c.log,
				in.Parallel.Tensor, in.Serving.VLLM.GPUMemoryUtilization, in.Limits.MaxSeqLen, c.tp, c.util, c.maxLen)
		}
	}
	l := fixture(t, "vllm-v1-0.21-tp4-rtx3090.log")
	l.Figures = append(l.Figures, Figure{Key: "weights", Name: "model loading", Bytes: 17 * planner.GiB})
	in, _ := l.Input(m, cal)
	p, err := planner.Report(in)
	if p.Layout == nil {
		t.Fatalf("TP 4 log planned without a layout: %v", err)
	}
	r0, _ := p.RankPlanOf(0)
	for _, r := range Compare(&l, &p) {
		if want := Planned(&r0, r.Key); r.Key != "kv" && r.Plan != want {
			t.Errorf("%s planned %d, want rank 0's %d (the layout's sum is %d)", r.Key, r.Plan, want, Planned(&p, r.Key))
		}
	}
}

// TestGive: a setting given to the check replaces what the log says and
// is named as given.
func TestGive(t *testing.T) {
	l := fixture(t, "vllm-v1-l40s-llama31-8b.log")
	l.Give(Given{TensorParallel: 2, Utilization: 0.9, MaxLen: 8192})
	if st := l.Settings; st == nil || st.TensorParallel != 2 || st.MaxLen != 8192 || l.Pool.Utilization != 0.9 || len(st.Given) != 3 {
		t.Fatalf("Give: settings %+v, pool %+v", l.Settings, l.Pool)
	}
	l = fixture(t, "vllm-v1-l40s-llama31-8b.log")
	if l.Give(Given{}); l.Settings != nil {
		t.Errorf("Give(zero) made settings %+v", *l.Settings)
	}
}

// TestComparePool: the pool in tokens (V1), else in blocks (V0).
func TestComparePool(t *testing.T) {
	p := planner.Plan{Engine: &planner.EngineReport{Pool: &planner.PoolAnswer{Tokens: 2000, Blocks: 125}}}
	for _, c := range []struct {
		pool PoolFigures
		want *PoolRow
	}{
		{PoolFigures{Tokens: 1000}, &PoolRow{Unit: "tokens", Plan: 2000, Log: 1000, Residual: 1}},
		{PoolFigures{Blocks: 100}, &PoolRow{Unit: "blocks", Plan: 125, Log: 100, Residual: 0.25}},
		{PoolFigures{Utilization: 0.9}, nil},
	} {
		l := Log{Pool: &c.pool}
		got := ComparePool(&l, &p)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("ComparePool(%+v) = %+v, want %+v", c.pool, got, c.want)
		}
	}
}

// TestWorkerOf reads the worker prefixes of vLLM's and SGLang's lines.
func TestWorkerOf(t *testing.T) {
	for _, c := range []struct {
		line  string
		other bool
		tp    int
	}{
		{"(VllmWorker rank=2 pid=81) INFO 05-01 …", true, 2},
		{"(VllmWorker TP0 pid=81) INFO …", false, 0},
		{"(Worker_TP3 pid=150) INFO …", true, 3},
		{"(Worker_PP1_TP0 pid=9) INFO …", true, 0},
		{"(EngineCore_DP0 pid=387) INFO …", false, 0},
		{"(EngineCore_DP1 pid=388) INFO …", true, 0},
		{"(APIServer pid=33518) INFO …", false, 0},
		{"(VllmWorkerProcess pid=90) INFO …", true, 0},
		{"[2026-01-15 13:56:49 DP1 TP1] Load weight end.", true, 1},
		{"[2025-03-27 21:33:30 TP0] Load weight end.", false, 0},
		{"[2025-11-30 12:50:10] KV Cache is allocated.", false, 0},
		{"INFO 12-13 02:09:14 model_runner.py:1094] Loading model weights took 18.4902 GB", false, 0},
		{"(no closing parenthesis TP7", false, 0},
	} {
		if w := workerOf(c.line); w.other() != c.other || w.tp != c.tp {
			t.Errorf("workerOf(%q) = %+v, want other %v, TP rank %d", c.line, w, c.other, c.tp)
		}
	}
}

// TestArgValue reads Python's argument lists.
func TestArgValue(t *testing.T) {
	cfg := "with config: model='/m/Qwen2-0.5B/', tokenizer_model='x', dtype=torch.bfloat16, max_seq_len=32768, enforce_eager=False)"
	args := "non-default args: {'model_tag': 'a', 'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 4}"
	for _, c := range []struct {
		s, key string
		dict   bool
		want   string
		ok     bool
	}{
		{cfg, "model", false, "/m/Qwen2-0.5B/", true},
		{cfg, "dtype", false, "torch.bfloat16", true},
		{cfg, "enforce_eager", false, "False", true},
		{cfg, "quantization", false, "", false},
		{args, "model", true, "Qwen/Qwen3-8B", true},
		{args, "tensor_parallel_size", true, "4", true},
		{"x='unterminated", "x", false, "", false}, // cut by the line's end: not read (TestWrappedArgs)
	} {
		if got, ok := argValue(c.s, c.key, c.dict); got != c.want || ok != c.ok {
			t.Errorf("argValue(%q, %q) = %q, %v; want %q, %v", c.s, c.key, got, ok, c.want, c.ok)
		}
	}
}
