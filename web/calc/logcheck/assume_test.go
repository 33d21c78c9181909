package logcheck

import (
	"os"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/planner/enginelog"
)

const logs = "../../../planner/enginelog/testdata/logs/"

// check plans a published log as `vramplan check` does and returns what it assumed.
func check(t *testing.T, file, model, gpu string, g enginelog.Given) []Assumption {
	t.Helper()
	data, err := os.ReadFile(logs + file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := enginelog.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	l.Give(g)
	m, err := catalog.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrations.Lookup(gpu)
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.Input(m, c)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := planner.Report(in)
	pl := PlannedOf(enginelog.RankZero(&p).Engine, enginelog.Compare(&l, &p))
	pl.KVByRelease = enginelog.ReleaseKV(&l, in)
	return Assumptions(&l, &pl, &m, &c)
}

// TestAssumptions: what each published log leaves unstated is listed, the
// assumptions that decide the comparison first — a utilization or memory fraction a KV pool turns on — and a flag
// that gives a fact takes it off the list.
func TestAssumptions(t *testing.T) {
	for _, c := range []struct {
		file, model, gpu string
		given            enginelog.Given
		want             string // the facts assumed, deciding ones with a '!', in order
	}{
		{"vllm-v0-rtx3090-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "est-rtx3090", enginelog.Given{},
			"engine_version tensor_parallel model gpu sampler"},
		{"vllm-v1-l40s-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "est-l40s", enginelog.Given{},
			"engine_version! utilization! tensor_parallel model gpu sampler"},
		{"vllm-v1-l40s-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "est-l40s", enginelog.Given{Utilization: 0.9, TensorParallel: 1},
			"engine_version model gpu sampler"},
		{"vllm-v1-0.21-tp4-rtx3090.log", "llama-3.3-70b-instruct-fp8", "est-rtx3090", enginelog.Given{},
			"engine_version tensor_parallel max_len model gpu sampler"},
		{"sglang-0.4-gemma3-4b-h200.log", "gemma-3-4b-it-bf16", "h200", enginelog.Given{},
			"utilization! engine_version tensor_parallel max_len model gpu"},
		{"vllm-v0-rtx3090-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "h200", enginelog.Given{},
			"gpu! engine_version tensor_parallel model sampler"},
		{"sglang-npu-dtype-tp16.log", "llama-3.3-70b-instruct-fp8", "h200", enginelog.Given{TensorParallel: 16},
			"utilization! engine_version max_len model gpu rank"},
		{"vllm-v1-l40s-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "est-gb10", enginelog.Given{Utilization: 0.9, TensorParallel: 1},
			"engine_version model gpu host_memory sampler"},
	} {
		var got []string
		for _, a := range check(t, c.file, c.model, c.gpu, c.given) {
			f := a.Fact
			if a.Decides {
				f += "!"
			}
			got = append(got, f)
			if a.Text == "" || a.Decides && a.Fact != "engine_version" && !strings.Contains(a.Text, "--"+a.Flag) {
				t.Errorf("%s: %s: %q does not ask for --%s", c.file, a.Fact, a.Text, a.Flag)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s on %s (given %+v): assumed %q, want %q", c.file, c.gpu, c.given, g, c.want)
		}
	}
}

// TestParallelDecides: a log planned on one GPU whose weights are a
// quarter of the plan's ran at TP 4, and the check says so and asks for it.
func TestParallelDecides(t *testing.T) {
	l := enginelog.Log{Engine: planner.EngineVLLM}
	pl := Planned{Rows: []enginelog.Row{{Key: "weights", Plan: 130 * planner.GiB, Log: 33 * planner.GiB}}}
	a, ok := parallelAssumption(&l, &pl)
	if !ok || !a.Decides || !strings.Contains(a.Text, "about 1/4 ") || !strings.Contains(a.Text, "--tensor-parallel") {
		t.Errorf("parallelAssumption = %+v, %v; want it to decide, at 1/4", a, ok)
	}
	for _, c := range []struct {
		plan, log planner.Bytes
		want      int
	}{{100, 100, 0}, {200, 100, 2}, {390, 100, 4}, {350, 100, 0}, {100, 0, 0}, {7000, 100, 0}} {
		if got := wholeRatio(c.plan, c.log); got != c.want {
			t.Errorf("wholeRatio(%d, %d) = %d, want %d", c.plan, c.log, got, c.want)
		}
	}
}

// TestV0Release: a V0 engine's log that states no release is planned by
// the V0 range's rules, as planner.VLLMV0Release, and the check says so
// without asking for the release; VLLMV0Release is the last release before
// the range V1's rules start at.
func TestV0Release(t *testing.T) {
	var said string
	for _, a := range check(t, "vllm-v0-rtx3090-llama31-8b.log", "llama-3.1-8b-instruct-bf16", "est-rtx3090", enginelog.Given{}) {
		if a.Fact == "engine_version" {
			said = a.Text
			if a.Decides || !strings.Contains(a.Text, "planned as vLLM "+planner.VLLMV0Release+" by the rules read at vLLM 0.6 (V0 engine)") {
				t.Errorf("V0 log's release: %+v", a)
			}
		}
	}
	if said == "" {
		t.Error("V0 log without a release: no engine_version assumption")
	}
	p := planner.EngineVLLM.Profile()
	v0, _ := planner.ParseVersion(planner.VLLMV0Release)
	r, err := p.Range(v0)
	v1, _ := planner.ParseVersion("0.8")
	if err != nil || r.Until != v1 || r.Name != "V0 engine" {
		t.Errorf("VLLMV0Release %s lies in %v (%v); want the V0 range, up to 0.8", planner.VLLMV0Release, r, err)
	}
}

// TestPlannedOf checks what a check says it planned with: vramplan's own
// profile without an engine report, else the report's release, launch
// command and fraction, the fraction 0 without a pool.
func TestPlannedOf(t *testing.T) {
	rows := []enginelog.Row{{Key: "weights"}}
	if got := PlannedOf(nil, rows); got.Version != "vramplan" || got.PlannedAs != "vramplan" || got.Launch != "" || len(got.Rows) != 1 {
		t.Errorf("PlannedOf(nil) = %+v, want vramplan's", got)
	}
	e := &planner.EngineReport{Engine: planner.EngineVLLM, Version: "0.19.1", Launch: "vllm serve m", Pool: &planner.PoolAnswer{Fraction: 0.85}}
	got := PlannedOf(e, rows)
	if got.Version != "0.19.1" || got.PlannedAs != planner.PlannedAs(e) || got.Launch != "vllm serve m" || got.Fraction != 0.85 {
		t.Errorf("PlannedOf(%+v) = %+v", e, got)
	}
	e.Pool = nil
	if got := PlannedOf(e, rows); got.Fraction != 0 {
		t.Errorf("PlannedOf without a pool: Fraction = %v, want 0", got.Fraction)
	}
}

// TestSamplerAssumption: a vLLM log that says which top-k/top-p sampler ran,
// FlashInfer's or the torch-native fallback, leaves it off the list; one
// that says neither, V0's or V1's, lists it, and so does no other engine's.
func TestSamplerAssumption(t *testing.T) {
	const v1 = "(EngineCore_0 pid=1) INFO 09-04 01:02:54 [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: model='m'\n" +
		"(EngineCore_0 pid=1) INFO 09-04 01:04:29 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB\n"
	for _, c := range []struct {
		log  string
		want string // "" for none, else a word of the text
	}{
		{v1, "warmed up with"},
		{v1 + "(EngineCore_0 pid=1) INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n", ""},
		{v1 + "(EngineCore_0 pid=1) WARNING 09-03 04:38:28 [topk_topp_sampler.py:61] FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.\n", ""},
		{v1 + "(EngineCore_0 pid=1) WARNING 05-02 10:00:00 [topk_topp_sampler.py:160] FlashInfer top-p/top-k sampling unavailable: FlashInfer is not installed (x); falling back. Set VLLM_USE_FLASHINFER_SAMPLER=0 to silence.\n", ""},
		{v1 + "(EngineCore_0 pid=1) INFO 05-02 10:00:00 [topk_topp_sampler.py:120] FlashInfer top-p/top-k sampling disabled via VLLM_USE_FLASHINFER_SAMPLER=0.\n", ""},
		{"INFO 09-04 01:03:00 worker.py:1 Memory profiling results: total_gpu_memory=79.1GiB initial_memory_usage=1.0GiB peak_torch_memory=20.0GiB memory_usage_post_profile=1.5GiB non_torch_memory=0.5GiB kv_cache_size=50.0GiB gpu_memory_utilization=0.90\n", "V0 engine's"},
	} {
		l, err := enginelog.Parse([]byte(c.log))
		if err != nil {
			t.Fatal(err)
		}
		a, ok := samplerAssumption(&l)
		if ok != (c.want != "") || ok && (a.Fact != "sampler" || a.Decides || !strings.Contains(a.Text, c.want)) {
			t.Errorf("samplerAssumption(%q) = %+v, %v; want %q", c.log, a, ok, c.want)
		}
	}
	if _, ok := samplerAssumption(&enginelog.Log{Engine: planner.EngineSGLang}); ok {
		t.Error("samplerAssumption(an SGLang log) lists the sampler")
	}
	l, err := enginelog.Parse([]byte(v1 + "(EngineCore_0 pid=1) INFO 09-04 01:02:55 [gpu_worker.py:283] Using V2 Model Runner\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := samplerAssumption(&l); ok {
		t.Errorf("samplerAssumption(a Model Runner V2 log) = %+v, want none: its profile runs no top-k/top-p", a)
	}
}

// TestRunnerAssumption: a V1 log of 0.25 or later that names neither model
// runner lists the runner as assumed; one that says Model Runner V2 ran, an
// earlier release's and one that states no release do not.
func TestRunnerAssumption(t *testing.T) {
	head := func(v string) string {
		return "(EngineCore pid=1) INFO 09-04 01:02:54 [core.py:74] Initializing a V1 LLM engine (v" + v + ") with config: model='m'\n" +
			"(EngineCore pid=1) INFO 09-04 01:04:29 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB\n"
	}
	const mrv2 = "(EngineCore pid=1) INFO 09-04 01:02:55 [gpu_worker.py:283] Using V2 Model Runner\n"
	for _, c := range []struct {
		log  string
		want bool
	}{
		{head("0.28.0"), true},
		{head("0.25.1"), true},
		{head("0.29.0") + mrv2, false},
		{head("0.20.2"), false},
		{"(EngineCore pid=1) INFO 09-04 01:04:29 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB\n", false},
	} {
		l, err := enginelog.Parse([]byte(c.log))
		if err != nil {
			t.Fatal(err)
		}
		a, ok := runnerAssumption(&l)
		if ok != c.want || ok && (a.Fact != "runner" || a.Decides || !strings.Contains(a.Text, planner.VLLMModelRunnerV2)) {
			t.Errorf("runnerAssumption(%q) = %+v, %v; want %v", c.log, a, ok, c.want)
		}
	}
}

// TestModelNamed: a vLLM or SGLang log that names a model other than the
// one checked says so first, asking for --model; a name that holds the
// checked model's (a quantized repository of it) or that it holds does not.
func TestModelNamed(t *testing.T) {
	m, err := catalog.Lookup("qwen3-8b-bf16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		logged string
		same   bool
	}{
		{"Qwen/Qwen3-8B", true},
		{"Qwen/Qwen3-8B-AWQ", true},
		{"/models/Qwen3-8B/", true},
		{"qwen3", true},
		{"cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit", false},
		{"meta-llama/Llama-3.1-8B-Instruct", false},
		{`C:\models\Qwen2-0.5B`, false},
	} {
		l := enginelog.Log{Engine: planner.EngineVLLM, Settings: &enginelog.Settings{Model: c.logged}}
		a, ok := modelAssumption(&l, &m)
		if ok == c.same || !c.same && (!a.Decides || !strings.Contains(a.Text, c.logged) || !strings.Contains(a.Text, "--model")) {
			t.Errorf("a log of %q checked as %s: %+v, %v; want the same model: %v", c.logged, m.ID, a, ok, c.same)
		}
	}
	l := enginelog.Log{Engine: planner.EngineVLLM}
	if a, ok := modelAssumption(&l, &m); !ok || a.Decides || !strings.Contains(a.Text, "names no model") {
		t.Errorf("a log that names no model: %+v, %v", a, ok)
	}
}

// TestReleaseDecides: a V1 log that states no release says what its lines
// bound it to, and the release decides the comparison when the releases
// it may be of plan its KV cache more than ReleaseTolerance apart.
func TestReleaseDecides(t *testing.T) {
	l := enginelog.Log{Engine: planner.EngineVLLM, Settings: &enginelog.Settings{ReleaseUntil: "0.18", ReleaseBy: []string{"no estimate"}}}
	for _, c := range []struct {
		lo, hi  planner.Bytes
		decides bool
	}{{97, 100, false}, {96, 100, true}, {0, 0, false}} {
		pl := Planned{Version: "vLLM 0.18 (V1 engine)", PlannedAs: "vLLM 0.17, by the rules read at vLLM 0.18 (V1 engine)",
			KVByRelease: []enginelog.KVAt{{Release: "0.13", KV: c.lo * planner.GiB}, {Release: "0.18", KV: c.hi * planner.GiB}}}
		a, ok := versionAssumption(&l, &pl)
		if !ok || a.Decides != c.decides || !strings.Contains(a.Text, "its lines bound it to before 0.18 (no estimate): planned as vLLM 0.17,") ||
			c.decides && !strings.Contains(a.Text, "at 0.13 to ") {
			t.Errorf("versionAssumption(KV %d–%d GiB) = %+v", c.lo, c.hi, a)
		}
	}
}

// TestReleaseTolerance: the release decides at the residual the corpus
// holds a figure to.
func TestReleaseTolerance(t *testing.T) {
	if ReleaseTolerance != corpus.Tolerance {
		t.Errorf("ReleaseTolerance = %v, corpus.Tolerance = %v", ReleaseTolerance, corpus.Tolerance)
	}
}
