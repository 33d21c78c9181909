package cmdline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
)

// notWritten are the flags no launch command writes, each with why: the
// round trip covers every other flag of every engine's reader.
var notWritten = map[string]string{
	"-b":      "caps -ub, which the launch writes itself",
	"-no-kvu": "the launch leaves -kvu out instead",
	"-nofa":   "the launch writes -fa off",
	"--model": "vllm serve names the model by its first argument",
	// the launch writes the capture options as --cudagraph-capture-sizes and --max-cudagraph-capture-size
	"--compilation-config": "its capture options are written as their own flags",
	"-cc":                  "as --compilation-config",
	"-mm":                  "an alias the launch writes as --mmproj", // a name of the same flag as --mmproj
	"-hf":                  "the launch names the catalog model's GGUF file with -m (planner.GGUFFile), which -hf resolves to",
	"-hff":                 "as -hf",
	// the launch writes --mmproj for a vision tower and nothing without one
	"--no-mmproj": "a vision tower is --mmproj FILE in the launch",
}

// TestLaunchRoundTrip runs each engine's launch command back through the
// reader --from-flags uses and plans the same: the same items, total and
// fit, and the same launch command again. Its inputs set every flag each
// engine's reader knows but those in notWritten, which it checks.
func TestLaunchRoundTrip(t *testing.T) {
	h200, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	model := func(id string) planner.Model {
		m, err := catalog.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dense, moe, swa := model("llama-3.1-8b-instruct-q8_0"), model("qwen3-30b-a3b-q4_k_m"), model("gemma-3-4b-it-q4_k_m")
	mm := swa
	mm.Vision = &planner.Vision{Bytes: 851 * planner.MiB, Source: planner.SourceExact, File: "/models/my mmproj.gguf"}
	fp8, bf16, awq := model("llama-3.3-70b-instruct-fp8"), model("qwen3-8b-bf16"), model("llama-3.1-8b-instruct-awq-int4")
	f16 := bf16
	f16.Weights.Converted, f16.Weights.Dtype = "f16", "f16"
	gemma := model("gemma-3-4b-it-bf16")
	llama := func(o planner.LlamaCppOptions) planner.Serving {
		return planner.Serving{Engine: planner.EngineLlamaCpp, LlamaCpp: o}
	}
	vllm := func(o planner.VLLMOptions) planner.Serving {
		return planner.Serving{Engine: planner.EngineVLLM, VLLM: o}
	}
	sglang := func(o planner.SGLangOptions) planner.Serving {
		return planner.Serving{Engine: planner.EngineSGLang, SGLang: o}
	}
	on, off := planner.FlashAttnOn, planner.FlashAttnOff
	for i, in := range []planner.Input{
		{Model: dense, Limits: planner.Limits{MaxSeqLen: 8192}, Serving: llama(planner.LlamaCppOptions{})},
		{Model: dense, Limits: planner.Limits{MaxSeqLen: 4096, MaxBatch: 4, KVDtype: planner.KVDtypeQ8_0, MaxPrefillTokens: 1024},
			Serving: llama(planner.LlamaCppOptions{Unified: true, FlashAttn: on, VDtype: planner.KVDtypeQ4_0, GPULayers: 20})},
		{Model: mm, Limits: planner.Limits{MaxSeqLen: 16384, MaxBatch: 2}, Features: planner.Features{Vision: true},
			Serving: llama(planner.LlamaCppOptions{SWAFull: true, FlashAttn: off})},
		{Model: model("gemma-3-12b-it-q4_k_m"), Limits: planner.Limits{MaxSeqLen: 8192, MaxBatch: 1}, Features: planner.Features{Vision: true},
			Serving: llama(planner.LlamaCppOptions{})},
		{Model: moe, Limits: planner.Limits{MaxSeqLen: 32768, MaxBatch: 2}, Parallel: planner.Parallel{Pipeline: 2, TensorSplit: []float64{3, 1}},
			Serving: llama(planner.LlamaCppOptions{})},
		{Model: moe, Limits: planner.Limits{MaxSeqLen: 32768, MaxBatch: 2}, Parallel: planner.Parallel{Tensor: 2},
			Serving: llama(planner.LlamaCppOptions{FlashAttn: on})},
		{Model: fp8, Limits: planner.Limits{MaxSeqLen: 16384}, Parallel: planner.Parallel{Tensor: 2}, Serving: vllm(planner.VLLMOptions{})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 32768, MaxBatch: 64, MaxPrefillTokens: 4096, BlockTokens: 32, KVDtype: planner.KVDtypeFP8},
			Serving: vllm(planner.VLLMOptions{GPUMemoryUtilization: 0.85, EnforceEager: true})},
		{Model: f16, Limits: planner.Limits{MaxSeqLen: 8192}, Serving: vllm(planner.VLLMOptions{KVCacheMemoryBytes: 20 * planner.GiB})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 8192}, Serving: vllm(planner.VLLMOptions{MaxCaptureSize: 64})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 8192}, Serving: vllm(planner.VLLMOptions{CaptureSizes: &[]int{1, 2, 4, 8, 16, 32, 64}})},
		{Model: awq, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Pipeline: 2, Data: 2}, Serving: vllm(planner.VLLMOptions{})},
		{Model: moe, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Tensor: 2, Expert: 2}, Serving: vllm(planner.VLLMOptions{})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 32768}, Serving: sglang(planner.SGLangOptions{})},
		{Model: gemma, Limits: planner.Limits{MaxSeqLen: 16384, MaxBatch: 48, MaxPrefillTokens: 4096, BlockTokens: 16, KVDtype: planner.KVDtypeFP8},
			Serving: sglang(planner.SGLangOptions{MemFractionStatic: 0.8, CUDAGraphMaxBS: 64, SWAFullTokensRatio: 0.5})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 8192}, Serving: sglang(planner.SGLangOptions{ChunkedPrefillOff: true})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Tensor: 2, NoCustomAllReduce: true}, Serving: sglang(planner.SGLangOptions{})},
		{Model: bf16, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Tensor: 4, NoCustomAllReduce: true}, Serving: vllm(planner.VLLMOptions{})},
		{Model: f16, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Tensor: 2, Pipeline: 2, Data: 2}, Serving: sglang(planner.SGLangOptions{})},
		{Model: moe, Limits: planner.Limits{MaxSeqLen: 8192}, Parallel: planner.Parallel{Tensor: 2, Expert: 2}, Serving: sglang(planner.SGLangOptions{})},
		{Model: fp8, Limits: planner.Limits{MaxSeqLen: 16384}, Parallel: planner.Parallel{Tensor: 2}, Serving: sglang(planner.SGLangOptions{})},
	} {
		in.Calibration = h200
		p, err := planner.Report(in)
		if _, failed := err.(*planner.Failure); err != nil && !failed {
			t.Fatalf("input %d: %v", i, err)
		}
		launch := launchOf(&p)
		c, err := Parse(launch)
		if err != nil {
			t.Errorf("input %d: Parse(%q) = %v", i, launch, err)
			continue
		}
		markWritten(t, launch, c.Engine)
		if len(c.Ignored) > 0 {
			t.Errorf("input %d: %q: flags ignored %q", i, launch, c.Ignored)
		}
		if want := modelArgOf(&in); c.Model != want || c.WeightsDtype != in.Model.Weights.Converted || c.Mmproj != mmprojOf(&in) {
			t.Errorf("input %d: %q names model %q (weights %q, mmproj %q), want %q (%q, %q)", i, launch, c.Model, c.WeightsDtype,
				c.Mmproj, want, in.Model.Weights.Converted, mmprojOf(&in))
		}
		back := planner.Input{Model: in.Model, Calibration: in.Calibration, Features: planner.Features{Vision: c.Mmproj != ""}}
		if _, err := c.Apply(&back); err != nil {
			t.Fatalf("input %d: Apply(%q): %v", i, launch, err)
		}
		q, err := planner.Report(back)
		if _, failed := err.(*planner.Failure); err != nil && !failed {
			t.Fatalf("input %d: %q: %v", i, launch, err)
		}
		if got, want := summary(&q), summary(&p); got != want {
			t.Errorf("input %d: %q plans\n%s\nwant\n%s", i, launch, got, want)
		}
	}
	for _, d := range dialects {
		for _, f := range d.flags {
			if !written[d.engine][f.names[0]] && !anyNotWritten(f.names) {
				t.Errorf("%s's flag %s is in no launch command of the table, nor in notWritten", d.engine, f.names[0])
			}
		}
	}
}

// written is the flags the launch commands wrote, by engine, by the first
// name of their flag.
var written = map[planner.EngineName]map[string]bool{}

func markWritten(t *testing.T, launch string, e planner.EngineName) {
	args, err := split(launch)
	if err != nil {
		t.Fatal(err)
	}
	d := dialectOf(e)
	if written[e] == nil {
		written[e] = map[string]bool{}
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if f := d.lookup(name); f != nil {
			written[e][f.names[0]] = true
		}
	}
}

func anyNotWritten(names []string) bool {
	for _, n := range names {
		if _, ok := notWritten[n]; ok {
			return true
		}
	}
	return false
}

// launchOf is the launch command of a plan, a layout's binding rank's.
func launchOf(p *planner.Plan) string {
	if p.Layout != nil {
		b, _ := p.RankPlanOf(p.Layout.Binding)
		return b.Engine.Launch
	}
	return p.Engine.Launch
}

// summary is what the round trip must keep of a plan: its fit and total,
// and each rank's items and launch command.
func summary(p *planner.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fits %v total %d\n", p.Fits, p.Total)
	plans := []planner.Plan{*p}
	if p.Layout != nil {
		plans = plans[:0]
		for _, r := range p.Layout.Ranks {
			plans = append(plans, r.Plan)
		}
	}
	for _, q := range plans {
		for _, it := range q.Items {
			fmt.Fprintf(&b, "  %s %d\n", it.Key, it.Bytes)
		}
		fmt.Fprintf(&b, "  launch %s\n", q.Engine.Launch)
	}
	return b.String()
}

// modelArgOf is the model argument the launch of in must name.
func modelArgOf(in *planner.Input) string {
	if in.Serving.Engine == planner.EngineLlamaCpp {
		return planner.GGUFFile(&in.Model)
	}
	_, r, _ := strings.Cut(in.Model.Source, "generated from ")
	repo, _, _ := strings.Cut(r, " ")
	return repo
}

func mmprojOf(in *planner.Input) string {
	if in.Serving.Engine != planner.EngineLlamaCpp || !in.Features.Vision || in.Model.Vision == nil {
		return ""
	}
	if f := in.Model.Vision.File; f != "" {
		return f
	}
	name := planner.GGUFFile(&in.Model)
	return "mmproj-" + name[:strings.LastIndexByte(name[:len(name)-len(".gguf")], '-')] + "-F16.gguf"
}
