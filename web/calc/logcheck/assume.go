package logcheck

// This file says what a check had to assume: every fact of the setup that
// the plan needs and the log does not state — the engine's release, the
// tensor-parallel size, the utilization or memory fraction, the request
// length, the model, the GPU, a unified-memory host's share, vLLM's
// top-k/top-p sampler path and its model runner. An assumption that decides the
// comparison (a TP 4 log planned on one GPU, a KV pool sized at a
// utilization the run did not use) is said first, with the flag that
// states it, by `vramplan check` and the page's log box alike.

import (
	"cmp"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// The `vramplan check` flags that state what a log may not: an
// Assumption names the one it asks for, and the CLI registers them under
// these names.
const (
	FlagEngineVersion    = "engine-version"
	FlagTensorParallel   = "tensor-parallel"
	FlagPipelineParallel = "pipeline-parallel"
	FlagMaxSeqLen        = "max-seq-len"
	FlagUtilization      = "gpu-memory-utilization"
	FlagMemFraction      = "mem-fraction-static"
	FlagModel            = "model"
	FlagGPU              = "gpu"
)

// Assumption is a fact a check planned with that the log did not state.
type Assumption struct {
	// Fact names it: "engine_version", "tensor_parallel", "utilization",
	// "max_len", "model", "gpu", "host_memory", "sampler", "runner", "rank".
	Fact string `json:"fact"`
	// Planned is what the check planned with.
	Planned string `json:"planned"`
	// Flag is the `vramplan check` flag that states the fact, when one does.
	Flag string `json:"flag,omitempty"`
	// Decides reports whether the comparison turns on it: the rows set the
	// log against a setup it may not be of.
	Decides bool   `json:"decides"`
	Text    string `json:"text"`
}

// Planned is what a check planned, beyond the log: the plan's rows, the
// release its rules were read at (the plan's Engine.Version), its pool's
// fraction (Engine.Pool.Fraction, 0 for none) and the engine's launch
// command. The page's checkLog answers with it embedded.
type Planned struct {
	Rows    []enginelog.Row `json:"rows"`
	Version string          `json:"version"`
	// PlannedAs says Version and the release the log named for a person
	// (planner.PlannedAs).
	PlannedAs string  `json:"planned_as"`
	Fraction  float64 `json:"fraction,omitempty"`
	// Launch is the engine's launch command for the plan, "" for vramplan's.
	Launch string `json:"launch,omitempty"`
	// RankRows are the rows of the ranks whose plan is not rank 0's (a
	// later pipeline stage's) against what they printed
	// (enginelog.CompareRanks).
	RankRows []enginelog.RankRows `json:"rank_rows,omitempty"`
	// KVByRelease is the least and the most KV cache rank 0's plan holds
	// at the releases a log that states none may be of
	// (enginelog.ReleaseKV), when they are of more than one range's rules.
	KVByRelease []enginelog.KVAt `json:"kv_by_release,omitempty"`
}

// ReleaseTolerance is how far apart, as a share of the larger, the KV
// caches the releases a log may be of plan can be before the release
// decides the comparison: the residual the corpus holds a figure to
// (calibrations/corpus.Tolerance, the 3 %).
const ReleaseTolerance = 0.03

// PlannedOf returns what a plan whose rows against the log are rows
// planned with, e its rank 0's engine report (enginelog.RankZero's
// Engine, as the rows are rank 0's; nil for vramplan's own profile).
func PlannedOf(e *planner.EngineReport, rows []enginelog.Row) Planned {
	if e == nil {
		return Planned{Rows: rows, Version: "vramplan", PlannedAs: "vramplan"}
	}
	pl := Planned{Rows: rows, Version: e.Version, PlannedAs: planner.PlannedAs(e), Launch: e.Launch}
	if e.Pool != nil {
		pl.Fraction = e.Pool.Fraction
	}
	return pl
}

// Assumptions returns what a check of log l on model m and calibration c,
// planned as pl, assumed: those that decide the comparison first.
func Assumptions(l *enginelog.Log, pl *Planned, m *planner.Model, c *planner.Calibration) []Assumption {
	var out []Assumption
	add := func(a Assumption, ok bool) {
		if ok {
			out = append(out, a)
		}
	}
	add(versionAssumption(l, pl))
	if !enginelog.StatesContext(l.Engine) {
		add(parallelAssumption(l, pl))
		add(fractionAssumption(l, pl))
		add(lengthAssumption(l, m))
	}
	add(modelAssumption(l, m))
	add(gpuAssumption(l, c))
	add(hostAssumption(l, c))
	add(samplerAssumption(l))
	add(runnerAssumption(l))
	add(rankAssumption(l))
	var first, rest []Assumption
	for _, a := range out {
		if a.Decides {
			first = append(first, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(first, rest...)
}

func label(e planner.EngineName) string {
	if p := e.Profile(); p != nil {
		return p.Label
	}
	return string(e)
}

// versionAssumption: a log that states no release is planned by the rules
// the profile was read at, or a V1 log by the newest release its lines
// allow (enginelog.Log.Releases); when the releases it may be of plan its
// KV cache more than ReleaseTolerance apart, the release decides. One
// outside every range of the profile compares another release's rules
// with it, which decides the comparison too.
func versionAssumption(l *enginelog.Log, pl *Planned) (Assumption, bool) {
	a := Assumption{Fact: "engine_version", Planned: pl.Version, Flag: FlagEngineVersion}
	if l.Version == "" && l.V0() {
		a.Text = printf.Sprintf("The log states no vLLM release, and its lines are the V0 engine's (the default before 0.8): planned as vLLM %s by the rules read at %s, which every V0 release shares; --engine-version gives the release.",
			planner.VLLMV0Release, pl.Version)
		return a, true
	}
	if l.Version == "" {
		as := "as " + pl.PlannedAs
		if pl.PlannedAs == pl.Version {
			as = "by the rules read at " + pl.Version
		}
		a.Text = printf.Sprintf("The log states no %s release%s: planned %s.", label(l.Engine), bound(l), as)
		if k := pl.KVByRelease; len(k) == 2 && float64(k[1].KV-k[0].KV) > ReleaseTolerance*float64(k[1].KV) {
			a.Decides = true
			a.Text += printf.Sprintf(" The releases it may be of plan its KV cache from %s at %s to %s at %s, more than %g %% apart: give --%s, the release it ran.",
				size(k[0].KV), releaseName(l, k[0].Release), size(k[1].KV), releaseName(l, k[1].Release), 100*ReleaseTolerance, FlagEngineVersion)
		}
		return a, true
	}
	p := l.Engine.Profile()
	v, err := planner.ParseVersion(l.Version)
	if err != nil || p == nil || len(p.Versions) == 0 {
		return a, false
	}
	if _, err := p.Range(v); err != nil {
		a.Decides = true
		a.Text = printf.Sprintf("The log is %s %s, and the rules planned are %s's: %s. Its figures are compared with another release's rules.",
			p.Label, l.Version, pl.Version, err.(*planner.InputError).Msg)
		return a, true
	}
	return a, false
}

// bound says what a V1 log's lines bound its release to, "" when nothing.
func bound(l *enginelog.Log) string {
	st := l.Settings
	if st == nil || st.ReleaseFrom == "" && st.ReleaseUntil == "" {
		return ""
	}
	r := st.ReleaseFrom + " and later"
	switch {
	case st.ReleaseFrom == "":
		r = "before " + st.ReleaseUntil
	case st.ReleaseUntil != "":
		r = st.ReleaseFrom + " up to " + st.ReleaseUntil
	}
	return printf.Sprintf(", and its lines bound it to %s (%s)", r, strings.Join(st.ReleaseBy, "; "))
}

// releaseName names release v of l's engine for a person: "" is the
// profile's newest rules, named by their first release.
func releaseName(l *enginelog.Log, v string) string {
	if p := l.Engine.Profile(); v == "" && p != nil && len(p.Versions) > 0 {
		return p.Versions[len(p.Versions)-1].From.String() + " and later"
	}
	return v
}

// parallelAssumption: a log that states no tensor-parallel size is planned
// as the ranks that printed lines, or one GPU; when the log's weights are
// a whole fraction of the plan's, the size decides the comparison.
func parallelAssumption(l *enginelog.Log, pl *Planned) (Assumption, bool) {
	st := l.Settings
	if st == nil {
		st = &enginelog.Settings{}
	}
	if st.TensorParallel > 0 || st.PipelineParallel > 0 || given(st, "tensor_parallel") {
		return Assumption{}, false
	}
	a := Assumption{Fact: "tensor_parallel", Planned: "1", Flag: FlagTensorParallel}
	a.Text = "The log states no tensor-parallel size: planned on one GPU."
	if st.Ranks > 1 {
		a.Planned = printf.Sprintf("%d", st.Ranks)
		a.Text = printf.Sprintf("The log states no tensor-parallel size: its lines name ranks up to %d, so it was planned as TP %d.", st.Ranks-1, st.Ranks)
	}
	planned, logged := weightsRow(pl.Rows)
	if k := wholeRatio(planned, logged); k > 1 {
		a.Decides = true
		a.Text = printf.Sprintf("%s Its model weights are %s a GPU, about 1/%d of the %s planned per GPU: it ran on %d times as many. Give --tensor-parallel (and --pipeline-parallel) as it was started.",
			a.Text, size(logged), k, size(planned), k)
	}
	return a, true
}

func weightsRow(rows []enginelog.Row) (planned, logged planner.Bytes) {
	for _, r := range rows {
		if r.Key == "weights" {
			return r.Plan, r.Log
		}
	}
	return 0, 0
}

// wholeRatio returns k ≥ 2 when planned is within a tenth of k × logged,
// else 0.
func wholeRatio(planned, logged planner.Bytes) int {
	if logged <= 0 || planned < 2*logged-logged/10 {
		return 0
	}
	k := int((planned + logged/2) / logged)
	if d := planned - planner.Bytes(k)*logged; d*10 > planned || -d*10 > planned || k > 64 {
		return 0
	}
	return k
}

// fractionAssumption: vLLM's KV cache is what gpu_memory_utilization
// leaves, SGLang's what mem_fraction_static does, so one the log does not
// state decides any KV comparison.
func fractionAssumption(l *enginelog.Log, pl *Planned) (Assumption, bool) {
	a := Assumption{Fact: "utilization", Planned: printf.Sprintf("%g", pl.Fraction)}
	st := l.Settings
	switch l.Engine {
	case planner.EngineVLLM:
		if l.Pool != nil && l.Pool.Utilization > 0 || st != nil && given(st, "gpu_memory_utilization") {
			return a, false
		}
		a.Flag = FlagUtilization
		a.Text = printf.Sprintf("The log states no gpu_memory_utilization: planned at %g.", pl.Fraction)
	case planner.EngineSGLang:
		if st != nil && st.MemFractionStatic > 0 {
			return a, false
		}
		a.Flag = FlagMemFraction
		a.Text = printf.Sprintf("The log states no mem_fraction_static: planned at %g, SGLang's own formula for this GPU.", pl.Fraction)
	default:
		return a, false
	}
	if hasKV(l) {
		a.Decides = true
		a.Text += printf.Sprintf(" The KV cache is what it leaves, so the KV comparison turns on it: give --%s as the run set it.", a.Flag)
	}
	return a, true
}

func hasKV(l *enginelog.Log) bool {
	return figure(l, "kv") > 0 || l.Pool != nil && (l.Pool.Tokens > 0 || l.Pool.Blocks > 0)
}

// lengthAssumption: a log that states no request length is planned at the
// model's trained context.
func lengthAssumption(l *enginelog.Log, m *planner.Model) (Assumption, bool) {
	if st := l.Settings; st != nil && st.MaxLen > 0 || l.Pool != nil && l.Pool.ConcurrencyLen > 0 {
		return Assumption{}, false
	}
	return Assumption{Fact: "max_len", Planned: printf.Sprintf("%d", m.MaxContext), Flag: FlagMaxSeqLen,
		Text: printf.Sprintf("The log states no request length: planned at the model's context, %d tokens.", m.MaxContext)}, true
}

// modelAssumption: a log that names no model is checked against the one
// selected; a vLLM or SGLang log whose model's name is not the selected
// model's (neither name holds the other, sameModel) decides the comparison,
// since the weights alone tell two models of one size apart only by a tenth.
func modelAssumption(l *enginelog.Log, m *planner.Model) (Assumption, bool) {
	name := cmp.Or(m.Name, m.ID)
	a := Assumption{Fact: "model", Planned: cmp.Or(m.ID, m.Name), Flag: FlagModel}
	switch {
	case l.LlamaCpp != nil && l.LlamaCpp.Model != "":
		return a, false
	case l.Settings == nil || l.Settings.Model == "":
		a.Text = printf.Sprintf("The log names no model: checked against %s.", name)
	case sameModel(l.Settings.Model, m):
		return a, false
	default:
		a.Decides = true
		a.Text = printf.Sprintf("The log loaded %s, and the model checked is %s, whose name is not the log's: if the log is of another model, give --model as the one it loaded.",
			l.Settings.Model, name)
	}
	return a, true
}

// sameModel reports whether the model a vLLM or SGLang log names (a
// repository id or a local path) may be m: the last part of its path and
// m's repository's name, ID or name, lowercased, one holding the other
// ("Qwen3-8B-AWQ" is Qwen/Qwen3-8B's; "Qwen2-0.5B" is not Qwen2.5-0.5B's).
func sameModel(logged string, m *planner.Model) bool {
	base := func(s string) string {
		s = strings.ToLower(strings.TrimRight(s, `/\`))
		return s[strings.LastIndexAny(s, `/\`)+1:]
	}
	got := base(logged)
	repo, _ := planner.CatalogRepo(m)
	for _, n := range []string{base(repo), strings.ToLower(m.ID), strings.ToLower(m.Name)} {
		if n != "" && got != "" && (strings.Contains(got, n) || strings.Contains(n, got)) {
			return true
		}
	}
	return got == ""
}

// gpuAssumption: a vLLM or SGLang log names no GPU (llama.cpp's names its
// devices, and one of another size is a contradiction, Conflicts); a vLLM
// log's measured total that is not the selected GPU's decides the
// comparison.
func gpuAssumption(l *enginelog.Log, c *planner.Calibration) (Assumption, bool) {
	if l.LlamaCpp != nil && l.LlamaCpp.GPU != "" {
		return Assumption{}, false
	}
	gpu := cmp.Or(c.GPU, c.ID)
	a := Assumption{Fact: "gpu", Planned: c.ID, Flag: FlagGPU, Text: printf.Sprintf("The log names no GPU: checked on the %s.", gpu)}
	if st := l.Settings; st != nil && st.GPUTotal > 0 && c.DeviceTotal > 0 {
		if d := st.GPUTotal - c.DeviceTotal; d*20 > c.DeviceTotal || -d*20 > c.DeviceTotal {
			a.Decides = true
			a.Text = printf.Sprintf("The log names no GPU, and the one it ran on measured %s, where the %s checked on has %s: give --gpu of the card it ran on.",
				size(st.GPUTotal), gpu, size(c.DeviceTotal))
		}
	}
	return a, true
}

// hostAssumption: on a GPU whose memory is the host's, vLLM counts the
// host memory taken during its start as its own non-torch memory and
// refuses to start when the host has less available than its budget
// (planner/engine_vllm_uma.go); a log prints neither figure, so the check
// plans none of either, as serving.vllm's host_start_bytes and
// host_used_bytes default to.
func hostAssumption(l *enginelog.Log, c *planner.Calibration) (Assumption, bool) {
	if !c.UnifiedMemory || l.Engine != planner.EngineVLLM {
		return Assumption{}, false
	}
	return Assumption{Fact: "host_memory", Planned: "0 B taken during the start, 0 B in use",
		Text: "The GPU's memory is the host's: vLLM counts what the host takes during its start (other processes, a torch.compile " +
			"not cached) as its own non-torch memory, which the log does not print; checked with none taken and none in use " +
			"(serving.vllm.host_start_bytes, host_used_bytes), so a KV cache larger than the log's may be the host's share."}, true
}

// samplerAssumption: vLLM's profile run ends by sampling with top-k and
// top-p over the whole vocabulary, and its peak depends on the sampler path
// (planner.VLLMFlashInferSampler). A V1 log that says neither FlashInfer's
// path nor the native fallback, and every V0 log, is planned with the
// torch-native path, the larger warm-up; a log of Model Runner V2, whose
// profile runs neither (planner.VLLMModelRunnerV2), assumes nothing of it.
func samplerAssumption(l *enginelog.Log) (Assumption, bool) {
	if l.Engine != planner.EngineVLLM || l.SamplerStated() || l.ModelRunnerV2() {
		return Assumption{}, false
	}
	a := Assumption{Fact: "sampler", Planned: "native top-k/top-p",
		Text: "The log does not say which top-k/top-p sampler vLLM's profile run warmed up with: checked with the native path " +
			"(a sort before 0.17, a Triton kernel from it; serving.vllm.flashinfer_sampler plans FlashInfer's), so an activation peak below the plan's " +
			"may be FlashInfer's, or Model Runner V2's, whose profile skips top-k and top-p."}
	if st := l.Settings; st != nil && st.V0 {
		a.Text = "The log is the V0 engine's, which does not say which top-k/top-p sampler its profile run used: " +
			"checked with the torch-native one, as V0 is planned."
	}
	return a, true
}

// vllmMRV2From is the first release in which Model Runner V2 is the
// default for some models (dense ones "in 0.25.1", by vLLM PR #49233's
// description; every family from 0.29.0, docs/engine-results.md).
var vllmMRV2From, _ = planner.ParseVersion("0.25")

// runnerAssumption: a V1 log of a release that may have run Model Runner
// V2 by default and that names neither runner is planned with V1's
// (planner.VLLMModelRunnerV2 says what differs).
func runnerAssumption(l *enginelog.Log) (Assumption, bool) {
	if l.Engine != planner.EngineVLLM || l.ModelRunnerV2() || l.V0() {
		return Assumption{}, false
	}
	v, err := planner.ParseVersion(l.Version)
	if err != nil || v.Compare(vllmMRV2From) < 0 {
		return Assumption{}, false
	}
	return Assumption{Fact: "runner", Planned: "Model Runner V1",
		Text: "The log does not say which model runner vLLM ran (Model Runner V2 logs \"" + planner.VLLMModelRunnerV2 +
			"\" and prints from model_runner.py, V1 from gpu_model_runner.py): checked with V1's, whose profile warms the sampler up with " +
			"top-k and top-p; from 0.25 V2 is the default for more model families (for all from 0.29), and its profile skips them " +
			"and keeps max_num_seqs × vocab of sampler state (serving.vllm.model_runner_v2 plans it)."}, true
}

// rankAssumption: a log whose rank 0 printed no memory figure is read from
// the lowest other rank of its first pipeline stage that printed any
// (enginelog.Log.FiguresRank), whose figures are set against rank 0's
// plan: a tensor- or data-parallel rank of that stage holds what rank 0 does.
func rankAssumption(l *enginelog.Log) (Assumption, bool) {
	if l.FiguresRank == "" {
		return Assumption{}, false
	}
	return Assumption{Fact: "rank", Planned: "rank " + l.FiguresRank + " as rank 0",
		Text: printf.Sprintf("Rank 0's lines state no memory figure: the figures are rank %s's, the lowest rank of the first pipeline stage that printed any, set against rank 0's plan, which a rank of that stage holds alike.", l.FiguresRank)}, true
}

func given(st *enginelog.Settings, name string) bool {
	for _, g := range st.Given {
		if strings.EqualFold(g, name) {
			return true
		}
	}
	return false
}
