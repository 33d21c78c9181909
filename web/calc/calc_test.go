package calc

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func golden(t *testing.T, name string) planner.Input {
	t.Helper()
	data, err := os.ReadFile("../../planner/testdata/golden/" + name + ".input.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestQueryRoundTrip(t *testing.T) {
	for _, q := range []string{
		"model=m&gpu=g&batch=8&len=4096",
		"model=meta-llama%2FLlama-3.1-8B&gpu=h200&batch=1&len=131072&kv=fp8&block=32&prefill=256&cache=nvfp4&vision=1&spec=4&graphs=1&budget=30720",
		"model=a%20b&gpu=g&batch=3&len=5000&budget=1234567b",
	} {
		s, err := ParseQuery(q)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", q, err)
		}
		if got := s.Encode(); got != q {
			t.Errorf("ParseQuery(%q).Encode() = %q", q, got)
		}
	}
}

func TestParseQuery(t *testing.T) {
	s, err := ParseQuery("?model=a+b&budget=30GiB&vision=on&unknown=1&kv=FP8")
	if err != nil {
		t.Fatal(err)
	}
	want := State{Model: "a b", Len: DefaultLen, KV: planner.KVDtypeFP8, Vision: true, Budget: 30 * planner.GiB}
	if s != want {
		t.Errorf("ParseQuery = %+v, want %+v", s, want)
	}
	for q, key := range map[string]string{"len=lots": "len", "batch=1.5": "batch", "vision=maybe": "vision",
		"budget=-3x": "budget", "model=%zz": "query", "len=4096&len=8192": "len", "model=a&gpu=h200&model=b": "model"} {
		_, err := ParseQuery(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != key {
			t.Errorf("ParseQuery(%q) = %v, want a FieldError for %q", q, err, key)
		}
	}
	_, err = ParseQuery("model=a&model=b")
	if got, want := Words(err), `model is given twice, as "a" and "b": a link holds each key once`; got != want {
		t.Errorf("Words(ParseQuery(model given twice)) = %q, want %q", got, want)
	}
	if s, err := ParseQuery("len=8192&len=8%3192"); err != nil || s.Len != 8192 {
		t.Errorf("ParseQuery(len given twice, the same) = %+v, %v, want len 8192", s, err)
	}
}

func TestLenSlider(t *testing.T) {
	for i, want := range map[int]int{0: 256, 1: 320, 4: 512, 16: 4096, 17: 5120, LenSteps: 1 << 20, LenSteps + 5: 1 << 20} {
		if got := LenAt(i); got != want {
			t.Errorf("LenAt(%d) = %d, want %d", i, got, want)
		}
	}
	for i := 0; i <= LenSteps; i++ {
		if got := LenIndex(LenAt(i)); got != i {
			t.Errorf("LenIndex(LenAt(%d)) = %d", i, got)
		}
	}
}

// TestBudgetScale checks that the budget slider's top holds the budget and
// the plan's total, and stays put while the total moves within a band, so
// moving the length slider does not rescale the budget slider.
func TestBudgetScale(t *testing.T) {
	in := golden(t, "a43-example")
	device := in.Calibration.DeviceTotal.MiB()
	var tops []int64
	for _, n := range []int{4096, 8192, 16384, 32768, 65536} {
		v := Calculate(State{Batch: 8, Len: n}, in.Model, in.Calibration)
		top := v.Sliders.BudgetMaxMiB
		if top < v.TotalMiB || top < v.BudgetMiB || top < 2*device || top%(2*device) != 0 {
			t.Errorf("len %d: budget top %d MiB for total %d, budget %d, device %d", n, top, v.TotalMiB, v.BudgetMiB, device)
		}
		if len(tops) == 0 || tops[len(tops)-1] != top {
			tops = append(tops, top)
		}
	}
	if len(tops) > 3 {
		t.Errorf("budget tops %v over five lengths: the scale moves with every total", tops)
	}
	for _, c := range []struct{ device, need, want int64 }{
		{32607, 1, 65214}, {32607, 65214, 65214}, {32607, 65215, 130428}, {0, 5, 8}, {1, math.MaxInt64, math.MaxInt64},
	} {
		if got := budgetTop(c.device, c.need); got != c.want {
			t.Errorf("budgetTop(%d, %d) = %d, want %d", c.device, c.need, got, c.want)
		}
	}
}

// TestCalculateMatchesPlanner checks the view's figures against the plan
// document the CLI and the API print for the same input.
func TestCalculateMatchesPlanner(t *testing.T) {
	in := golden(t, "b1-qwen3-4b-fp8")
	s := State{Model: in.Model.ID, GPU: in.Calibration.ID, Batch: 8, Len: 4096, KV: planner.KVDtypeFP8, Block: 16}
	v := Calculate(s, in.Model, in.Calibration)
	p, _ := planner.Report(in)
	if v.TotalMiB != p.Total.MiB() || v.BudgetMiB != p.Budget.MiB() || v.Fits != p.Fits || len(v.Items) != len(p.Items) {
		t.Fatalf("Calculate = total %d budget %d fits %v; plan total %d budget %d fits %v",
			v.TotalMiB, v.BudgetMiB, v.Fits, p.Total.MiB(), p.Budget.MiB(), p.Fits)
	}
	if v.MaxSeqs != p.Capacity.MaxSeqsAtMaxLen || v.MaxLen != p.Capacity.MaxLenAtBatch {
		t.Errorf("capacity = %d, %d; want %d, %d", v.MaxSeqs, v.MaxLen, p.Capacity.MaxSeqsAtMaxLen, p.Capacity.MaxLenAtBatch)
	}
	if !strings.HasPrefix(v.Chart.Path, "M") || v.Query != s.Encode() {
		t.Errorf("chart path %q, query %q", v.Chart.Path, v.Query)
	}
}

// TestLeversLeadToFittingStates applies each lever's query and checks that
// a lever marked as fitting fits.
func TestLeversLeadToFittingStates(t *testing.T) {
	in := golden(t, "a43-example")
	s := State{Batch: 8, Len: 4096, Cache: planner.WeightCacheNVFP4}
	v := Calculate(s, in.Model, in.Calibration)
	if v.Fits || len(v.Levers) == 0 {
		t.Fatalf("a43 at batch 8 × 4096 with an NVFP4 cache: fits %v, %d levers; want a failure with levers", v.Fits, len(v.Levers))
	}
	for _, l := range v.Levers {
		t2, err := ParseQuery(l.Query)
		if err != nil {
			t.Fatal(err)
		}
		if w := Calculate(t2, in.Model, in.Calibration); w.Fits != l.Fits {
			t.Errorf("lever %q: fits %v after applying, lever says %v", l.Label, w.Fits, l.Fits)
		}
	}
}

func TestCalculateBadInput(t *testing.T) {
	in := golden(t, "b1-qwen3-4b-fp8")
	v := Calculate(State{Batch: 1, Len: -1}, in.Model, in.Calibration)
	if want := "Max sequence length: -1 is too small: it takes 1 to 134,217,728 tokens."; v.Error != want || v.Title != NotPlannedTitle(want) {
		t.Errorf("Calculate(len -1) = error %q, title %q; want the length field in words, and a title that says so", v.Error, v.Title)
	}
}

// TestWords checks what the page says of a state it cannot plan: the
// control by its label, a range in the control's units, other errors as
// they are.
func TestWords(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&FieldError{"batch", `"lots" is not a whole number`}, `Max batch: "lots" is not a whole number.`},
		{&planner.InputError{Field: "limits.max_batch", Msg: "9999999 is out of range [0, 65536]"}, "Max batch: 9,999,999 is too large: it takes 0 to 65,536 sequences."},
		{&planner.InputError{Field: "features.spec_decode_k", Msg: "-1 is out of range [0, 64]"}, "Speculative decoding k: -1 is too small: it takes 0 to 64."},
		{&planner.InputError{Field: "model.layers[0].count", Msg: "0 is out of range [1, 4096]"}, "model.layers[0].count: 0 is too small: it takes 1 to 4,096."},
		{&FieldError{"model", `no model "x"; closest: a, b`}, `no model "x"; closest: a, b`},
		{errors.New("is out of range [x, y]"), "Is out of range [x, y]."},
	} {
		if got := Words(c.err); got != c.want {
			t.Errorf("Words(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestWasmDeps keeps the package fit for the planner's WebAssembly: the
// standard library, the planner and its stand-ins for encoding/json and
// fmt (internal/jsonlite, internal/printf) only, and not
// net/url (40 KB gzip).
func TestWasmDeps(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("needs the go command")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		if path == "net/url" || std != "true" && !strings.HasPrefix(path, "github.com/vramplan/vramplan/planner") &&
			!strings.HasPrefix(path, "github.com/vramplan/vramplan/internal/") && path != "github.com/vramplan/vramplan/web/calc" {
			t.Errorf("calc depends on %s", path)
		}
	}
}

// TestCalculatorMemo checks that the kept frontier never shows: a sequence
// of states gives the views a fresh Calculate gives.
func TestCalculatorMemo(t *testing.T) {
	in := golden(t, "a43-example")
	var k Calculator
	for _, q := range []string{"batch=8&len=4096", "batch=9&len=4096", "batch=9&len=512", "batch=9&len=512&kv=fp8",
		"batch=2&len=512&kv=fp8", "batch=2&len=512&kv=fp8&budget=20000"} {
		s, _ := ParseQuery(q)
		got, want := k.Calculate(s, &in.Model, &in.Calibration), Calculate(s, in.Model, in.Calibration)
		if !reflect.DeepEqual(got.Chart, want.Chart) || got.TotalMiB != want.TotalMiB {
			t.Errorf("%s: memoised chart %+v, want %+v", q, got.Chart, want.Chart)
		}
	}
}

// BenchmarkCalculate is one slider move: the state changes its length.
func BenchmarkCalculate(b *testing.B) {
	data, _ := os.ReadFile("../../planner/testdata/golden/a43-example.input.json")
	in, _ := planner.ParseInput(data)
	var k Calculator
	s := State{Batch: 8, Len: 4096}
	i := 0
	for b.Loop() {
		s.Len = 1024 * (1 + i%32)
		i++
		k.Calculate(s, &in.Model, &in.Calibration)
	}
}

// TestEngineState: the engine is in the URL, and the view names the
// engine, answers in its terms and gives the launch command.
func TestEngineState(t *testing.T) {
	s, err := ParseQuery("model=x&gpu=y&engine=VLLM&len=32768")
	if err != nil || s.Engine != planner.EngineVLLM || s.Encode() != "model=x&gpu=y&engine=vllm&batch=0&len=32768" {
		t.Fatalf("ParseQuery(engine=VLLM) = %+v %q, %v", s, s.Encode(), err)
	}
	if _, err := ParseQuery("engine=ollama"); err == nil || !strings.Contains(err.Error(), "engine") {
		t.Errorf("ParseQuery(engine=ollama) = %v, want an error naming engine", err)
	}
	if s, _ := ParseQuery("engine=vramplan"); s.Encode() != "batch=0&len=4096" {
		t.Errorf("engine=vramplan encodes as %q, want the default left out", s.Encode())
	}
	in := golden(t, "engine-vllm-llama3-8b-h200")
	m, c := in.Model, in.Calibration
	s.Cache, s.Spec, s.Graphs = planner.WeightCacheFP8, 4, true // seed features: kept in the state, not planned
	v := Calculate(s, m, c)
	if v.Error != "" || !strings.HasPrefix(v.Engine, "planned as vLLM") || !strings.HasPrefix(v.Launch, "vllm serve ") ||
		!strings.Contains(v.Answer, "concurrency at 32,768 tokens") {
		t.Errorf("vLLM view: error %q, engine %q, launch %q, answer %q", v.Error, v.Engine, v.Launch, v.Answer)
	}
	// vLLM has no engine-persistent arena: the bar and its legend show no
	// "T2 engine 0 MiB", only the tiers that hold something.
	if slices.ContainsFunc(v.Bars, func(b Bar) bool { return b.MiB == 0 }) || strings.Contains(v.BarLabel, " 0 MiB") || len(v.Bars) == 0 {
		t.Errorf("vLLM view: bars %+v, label %q; want no empty tier", v.Bars, v.BarLabel)
	}
	if !slices.ContainsFunc(v.Warnings, func(w string) bool {
		return strings.Contains(w, "Weight cache, Speculative decoding k, CUDA-graph pool") && strings.Contains(w, "planned without them")
	}) {
		t.Errorf("vLLM view with the seed's features: warnings %q, want them named as not planned", v.Warnings)
	}
	s.KV = planner.KVDtypeQ4_0
	if v := Calculate(s, m, c); v.Error != "" || !slices.ContainsFunc(v.Warnings, func(w string) bool { return strings.Contains(w, "vllm offers no KV dtype q4_0") }) {
		t.Errorf("vLLM with q4_0: error %q, warnings %q; want a plan that says the dtype was not offered", v.Error, v.Warnings)
	}
	s.Engine = planner.EngineLlamaCpp // batch 0: llama-server's -np auto, 4 slots, as the CLI plans no --max-batch
	if v := Calculate(s, m, c); !strings.Contains(v.Launch, "llama-server") || !strings.Contains(v.Answer, "-np 4") ||
		!strings.Contains(v.Subject, " · batch 0: the engine's default, 4 · ") {
		t.Errorf("llama.cpp view: launch %q, answer %q, subject %q", v.Launch, v.Answer, v.Subject)
	}
	s.Engine = ""
	if v := Calculate(s, m, c); v.Launch != "" || !strings.Contains(v.Engine, "gpuagent") {
		t.Errorf("seed view: engine %q launch %q", v.Engine, v.Launch)
	}
}

func TestChartTrainedContext(t *testing.T) {
	in := golden(t, "b1-qwen3-4b-fp8")
	m, c := in.Model, in.Calibration
	m.MaxContext = 40960
	v := Calculate(State{Batch: 8, Len: 4096}, m, c)
	if v.Chart.TrainedLabel != "trained context 40,960" || v.Chart.TrainedY != LenY(40960) {
		t.Errorf("Chart of a %d-token model: trained at %q %q", m.MaxContext, v.Chart.TrainedY, v.Chart.TrainedLabel)
	}
	m.MaxContext = 0
	if v = Calculate(State{Batch: 8, Len: 4096}, m, c); v.Chart.TrainedLabel != "" || v.Chart.TrainedY != "-20" {
		t.Errorf("Chart of a model without a trained context marks it at %q %q", v.Chart.TrainedY, v.Chart.TrainedLabel)
	}
}

// TestEstimate checks the sentence beside an estimated GPU's verdict: the
// uncertainty, the warning on less headroom than it, a pool engine's pool
// that shrinks instead, and nothing on a measured GPU.
func TestEstimate(t *testing.T) {
	in := golden(t, "b1-qwen3-4b-fp8")
	m, c := in.Model, in.Calibration
	if v := Calculate(State{Batch: 8, Len: 4096}, m, c); v.Estimate != "" || v.EstimateURL != "" {
		t.Errorf("measured GPU: estimate %q %q", v.Estimate, v.EstimateURL)
	}
	c.ID, c.Source, c.Provenance.Uncertainty = "est-x", planner.CalibrationEstimated, 615*planner.MiB
	const head = "Estimated, not measured: est-x copies its figures from a measured card, and this card may leave up to 615 MiB less than planned."
	v := Calculate(State{Batch: 8, Len: 4096}, m, c)
	if v.Estimate != head || v.EstimateURL != "/calibrations#est-x" {
		t.Errorf("estimated GPU with room: %q %q", v.Estimate, v.EstimateURL)
	}
	c.DeviceTotal = planner.Bytes(v.TotalMiB+100) * planner.MiB // 100 MiB to spare
	if v := Calculate(State{Batch: 8, Len: 4096}, m, c); !strings.HasPrefix(v.Estimate, head+" The ") ||
		!strings.HasSuffix(v.Estimate, " MiB to spare is less than that: it may not fit.") {
		t.Errorf("estimated GPU, 100 MiB to spare: %q", v.Estimate)
	}
	if v := Calculate(State{Batch: 8, Len: 4096, Engine: planner.EngineVLLM}, m, c); !strings.HasSuffix(v.Estimate, "may be that much smaller.") {
		t.Errorf("estimated GPU under vLLM: %q, want the pool said to shrink", v.Estimate)
	}
	c.Provenance.Uncertainty = 0
	if v := Calculate(State{Batch: 8, Len: 4096}, m, c); !strings.HasSuffix(v.Estimate, "how far off they are is not known.") {
		t.Errorf("estimated GPU of no stated uncertainty: %q", v.Estimate)
	}
}
