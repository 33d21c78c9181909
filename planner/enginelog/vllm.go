package enginelog

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// vllmLog is how vLLM's start-up log is read: the V0 engine's lines
// (0.4–0.7: vllm/worker/model_runner.py, worker.py, executor), the V1
// engine's (0.8 and later: vllm/v1/worker/gpu_model_runner.py,
// gpu_worker.py, vllm/v1/core/kv_cache_utils.py), the configuration lines
// of both, and their worker prefixes. The formats are those of the start-up
// logs that users posted in vLLM's issue threads (testdata/logs, cited in
// logs_test.go).
var vllmLog = logReader{engine: planner.EngineVLLM,
	// The lines that print a size hold "B" (GiB, GB); the others are named
	// by a part that starts with a byte a server's request lines seldom hold.
	markers: []string{"B", "KV cache size:", "Maximum concurrency", "-memory-utilization", "blocks:",
		"-default args", "LLM engine (v", "API server version", "Using max model len", "top-p & top-k", "top-p/top-k", "V2 Model Runner",
		vllmNoCustomAllReduce},
	claims: func(s string) bool {
		for _, m := range vllmMarkers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	},
	read:     (*reader).vllmLine,
	rankRead: (*reader).vllmRankLine,
	facts:    &vllmFacts,
}

var vllmFacts = logFacts{engine: planner.EngineVLLM,
	figures:  []string{"weights", "kv", "activation_peak", "non_torch", "cuda_graphs", "consumed", "peak_in_budget"},
	settings: settingsPool,
	versions: []versionLine{{marker: "vLLM API server version "}, {marker: "LLM engine (v"}},
}

// vllmMarkers are what every line vllmLine reads holds one of.
var vllmMarkers = []string{"Model loading took", "Loading model weights took", "model weights take", "non_torch_memory takes",
	"PyTorch activation peak memory takes", "the rest of the memory reserved for KV Cache is", "Memory profiling results:",
	"Available KV cache memory:", "GPU KV cache size:", "Maximum concurrency for", "gpu_memory_utilization (",
	"GPU blocks:", "CUDA blocks:", "cuda blocks:", "Estimated CUDA graph memory:", "Graph capturing finished",
	"--gpu-memory-utilization", "non-default args: {", "LLM engine (v", "vLLM API server version", "Using max model len",
	planner.VLLMFlashInferSampler, vllmNativeFallback, vllmSamplerUnavailable, vllmSamplerDisabled, planner.VLLMModelRunnerV2,
	vllmConsumedLine, vllmSummaryLine, vllmGraphPoolLine, vllmNoCustomAllReduce}

// vllmMRV2File is the source tag of a line Model Runner V2's
// vllm/v1/worker/gpu/model_runner.py prints ("[model_runner.py:329] Model
// loading took …", "Graph capturing finished …"); V1's runner prints from
// gpu_model_runner.py, and V0's model_runner.py printed "Loading model
// weights took", which marks a V0 log.
const vllmMRV2File = "[model_runner.py:"

// vllmNativeSampler are what the lines hold that V1 logs when
// TopKTopPSampler takes the torch-native path for want of FlashInfer's:
// "FlashInfer is not available. Falling back to the PyTorch-native
// implementation of top-p & top-k sampling." (0.9–0.10: the 40GB run of
// dennislee22/vLLM-benchmarking, TestVLLMSampler), and "FlashInfer
// top-p/top-k sampling unavailable: …; falling back." or "… disabled via
// VLLM_USE_FLASHINFER_SAMPLER=0." (vllm/v1/sample/ops/topk_topp_sampler.py,
// flashinfer_sampler_supported; a code-index copy, commit 01fa3fe7, not a
// tag, with FlashInfer's sampler on by default as after PR #40376). A
// release that takes the native path by default logs nothing of it.
var vllmNativeSampler = [...]string{vllmNativeFallback, vllmSamplerUnavailable, vllmSamplerDisabled}

// The vllmNativeSampler lines, constants so that the reader's tables are
// static data.
const (
	vllmNativeFallback     = "Falling back to the PyTorch-native implementation of top-p & top-k sampling"
	vllmSamplerUnavailable = "top-p/top-k sampling unavailable"
	vllmSamplerDisabled    = "top-p/top-k sampling disabled"
)

// vllmFigures are the lines that state one charge: the figure after marker.
var vllmFigures = []struct{ marker, key, name string }{
	{"Model loading took", "weights", "model loading"},
	{"model weights take", "weights", "model weights"},
	{"non_torch_memory takes", "non_torch", "non-torch memory"},
	{"PyTorch activation peak memory takes", "activation_peak", "activation peak"},
	{"the rest of the memory reserved for KV Cache is", "kv", "KV cache"},
	{"Available KV cache memory:", "kv", "KV cache"},
	{"Graph capturing finished", "cuda_graphs", "CUDA graphs (captured)"},
}

// vllmLine reads one line of a vLLM log.
func (r *reader) vllmLine(s string) bool {
	read := false
	for _, f := range vllmFigures {
		if strings.Contains(s, f.marker) {
			if v, res, ok := vllmSize(s, f.marker); ok {
				r.set(f.key, f.name, v, res)
				read = true
			}
		}
	}
	for _, part := range []func(*reader, string) bool{(*reader).vllmV0Profile, (*reader).vllmPool, (*reader).vllmUtilization,
		(*reader).vllmConfig, (*reader).vllmSampler, (*reader).vllmRunner, (*reader).vllmSummary, (*reader).vllmCustomAllReduce} {
		if part(r, s) {
			read = true
		}
	}
	r.vllmReleaseLine(s)
	return read || r.vllmEstimate(r.as, s)
}

// vllmRankLine reads what of another rank's line is not that rank's alone:
// the CUDA-graph estimate, which every rank prints alike (the corpus's
// 0.19.0 TP 4 run's ranks print 2.73 GiB each; gpustack/runner PR #251,
// a log printed 08-14, shows a 0.27.1 TP 2 start whose two ranks print "Estimated
// CUDA graph memory: 0.36 GiB total", rank 1 first), kept when rank 0's
// lines lack it, and the lines that bound the release.
func (r *reader) vllmRankLine(w worker, s string) {
	r.vllmEstimate(w, s)
	r.vllmCustomAllReduce(s)
	r.vllmReleaseLine(s)
}

// vllmEstimate reads V1's CUDA-graph estimate (printed from 0.18,
// release.go) as rank w's.
func (r *reader) vllmEstimate(w worker, s string) bool {
	v, res, ok := binarySize(s, vllmEstimateLine)
	if !ok && strings.Contains(s, vllmGraphPoolLine) {
		v, res, ok = sizeBefore(s, " GiB (estimated)")
	}
	if ok {
		r.report(w, "cuda_graphs_estimate", "CUDA graphs (vLLM's estimate)", v, res)
	}
	return ok
}

// vllmGraphPoolLine opens 0.29's account of the graphs after the cache:
// "CUDA graph pool memory: 0.27 GiB (actual), 0.51 GiB (estimated),
// difference: …" (the corpus's 0.29.0 L40S logs), whose estimate is the
// one the budget took out, read as vllmEstimate's.
const vllmGraphPoolLine = "CUDA graph pool memory:"

// vllmSize reads a size after marker; after "took" it skips to the number
// ("Graph capturing finished in 14 secs, took 0.21 GiB"). V0's "Loading
// model weights took X GB" is GiB: vllm/worker/model_runner.py,
// GPUModelRunnerBase.load_model, divides by 2**30 (read in a stored copy of
// V0's source whose release is not pinned; the 3090 log of issue #10517,
// 14.9888 "GB" of Llama-3.1-8B's 16.06e9 bytes of bf16 weights, bears it out).
func vllmSize(s, marker string) (planner.Bytes, planner.Bytes, bool) {
	if marker == "Graph capturing finished" {
		marker = ", took"
	}
	return binarySize(s, marker)
}

// vllmV0Profile reads V0's weights line and its "Memory profiling
// results:" line (worker.py, determine_num_available_blocks, 0.6): the KV
// cache, the memory outside torch, the device total and the utilization;
// its peak_torch_memory holds the weights, so the activation peak is the
// peak less the weights.
func (r *reader) vllmV0Profile(s string) bool {
	if v, res, ok := binarySize(s, "Loading model weights took"); ok {
		r.set("weights", "model weights", v, res)
		r.settings.V0, r.stated = true, true
		return true
	}
	if !strings.Contains(s, "Memory profiling results:") {
		return false
	}
	r.settings.V0, r.stated = true, true
	if v, res, ok := size(s, "kv_cache_size="); ok {
		r.set("kv", "KV cache", v, res)
	}
	if v, res, ok := size(s, "non_torch_memory="); ok {
		r.set("non_torch", "non-torch memory", v, res)
	}
	if v, _, ok := size(s, "total_gpu_memory="); ok {
		r.settings.GPUTotal, r.stated = v, true
	}
	if peak, res, ok := size(s, "peak_torch_memory="); ok {
		if w, ok := r.sums["weights"]; ok && peak >= w.Bytes {
			r.set("activation_peak", "activation peak", peak-w.Bytes, res+w.Resolution)
		}
	}
	if u, _, ok := number(s, "gpu_memory_utilization="); ok && u > 0 && u <= 1 {
		r.pool.Utilization = u
	}
	return true
}

// vllmPool reads the KV pool's lines: V1's token count and both engines'
// concurrency, V0's block count ("# GPU blocks: N", "# cuda blocks: N").
func (r *reader) vllmPool(s string) bool {
	if n, ok := atoi(s, "GPU KV cache size:"); ok {
		r.isPool, r.pool.Tokens = true, int64(n)
		return true
	}
	if c, ok := atoi(s, "Maximum concurrency for"); ok {
		if x, _, ok := number(s, "tokens per request:"); ok {
			r.isPool, r.pool.ConcurrencyLen, r.pool.MaxConcurrency = true, c, x
			return true
		}
	}
	for _, m := range []string{"GPU blocks:", "CUDA blocks:", "cuda blocks:"} {
		if n, ok := atoi(s, m); ok {
			r.isPool, r.pool.Blocks = true, int64(n)
			r.settings.V0, r.stated = true, true
			return true
		}
	}
	return false
}

// vllmUtilization reads the utilization a line prints: the memory
// profile's "total_gpu_memory (79.18GiB) x gpu_memory_utilization (0.90)",
// 0.21's "The current --gpu-memory-utilization=0.9200 is equivalent to …"
// and the line before it, "increase --gpu-memory-utilization from 0.7000
// to 0.7021" (gpu_worker.py, determine_available_memory).
func (r *reader) vllmUtilization(s string) bool {
	read := false
	if v, _, ok := size(s, "total_gpu_memory ("); ok {
		r.settings.GPUTotal, r.stated, read = v, true, true
	}
	for _, m := range []string{"gpu_memory_utilization (", "The current --gpu-memory-utilization=", "increase --gpu-memory-utilization from "} {
		if u, _, ok := number(s, m); ok && u > 0 && u <= 1 {
			r.pool.Utilization, read = u, true
		}
	}
	return read
}

// vllmSummaryLine opens V1's report of its start (gpu_worker.py,
// Worker.determine_available_memory, from 0.10): "Free memory on device
// (F/T GiB) on startup. Desired GPU memory utilization is (U, B GiB).
// Actual usage is …", and, where the budget was not free, "Free memory on
// device cuda:0 (F/T GiB) on startup is less than desired GPU memory
// utilization (U, B GiB)".
const vllmSummaryLine = "Free memory on device"

// vllmSummary reads the start's report: the device's total and the
// utilization, and the charges, in one of its two wordings. Up to 0.19.0
// (the corpus's 0.10.2 to 0.19.0 logs, and 0.26.0's MRV2 one): "W GiB for
// weight, A GiB for peak activation, N GiB for non-torch memory, and G GiB
// for CUDAGraph memory"; later: "C GiB for consumed memory (weights +
// non-torch), A GiB for peak activation, and G GiB for CUDAGraph memory".
// Every such corpus log's KV memory is B − W − N − A, or B − C − A, to the
// hundredth, so A is all the budget holds beside the weights, the memory
// outside torch and the cache: the profile's peak and, from 0.21, the
// CUDA-graph estimate (peak_in_budget). W is "Model loading took"'s, to
// fewer places, and G the graphs captured after the cache is sized, as
// "Graph capturing finished" says: neither is read again.
func (r *reader) vllmSummary(s string) bool {
	if !strings.Contains(s, vllmSummaryLine) {
		return false
	}
	if v, _, ok := size(s, "/"); ok {
		r.settings.GPUTotal, r.stated = v, true
	}
	for _, m := range []string{"utilization is (", "utilization ("} {
		if u, _, ok := number(s, m); ok && u > 0 && u <= 1 {
			r.pool.Utilization = u
			break
		}
	}
	for _, f := range vllmSummaryFigures {
		if v, res, ok := sizeBefore(s, f.label); ok {
			r.set(f.key, f.name, v, res)
		}
	}
	return true
}

// vllmSummaryFigures are the charges of the start's report, each the size
// before its label.
var vllmSummaryFigures = []struct{ label, key, name string }{
	{" GiB for non-torch memory", "non_torch", "non-torch memory"},
	{" GiB for consumed memory", "consumed", "weights + non-torch"},
	{" GiB for peak activation", "peak_in_budget", "activation + graph estimate"},
}

// sizeBefore reads the GiB figure that label follows in s ("27.79 GiB for
// consumed memory"), to its printed resolution.
func sizeBefore(s, label string) (planner.Bytes, planner.Bytes, bool) {
	i := strings.Index(s, label)
	if i <= 0 {
		return 0, 0, false
	}
	j := strings.LastIndexByte(s[:i], ' ') + 1
	return size(s[j:i]+" GiB", "")
}

// vllmArgs are the keys of vLLM's argument lists the check plans with: the
// engine's config line uses the first name, "non-default args" the second.
var vllmArgs = []struct {
	config, arg string
	set         func(*Settings, *PoolFigures, string)
}{
	{"model", "model", setString(func(st *Settings) *string { return &st.Model })},
	{"dtype", "dtype", setString(func(st *Settings) *string { return &st.Dtype })},
	{"kv_cache_dtype", "kv_cache_dtype", setString(func(st *Settings) *string { return &st.KVDtype })},
	{"tensor_parallel_size", "tensor_parallel_size", setCount(func(st *Settings) *int { return &st.TensorParallel })},
	{"pipeline_parallel_size", "pipeline_parallel_size", setCount(func(st *Settings) *int { return &st.PipelineParallel })},
	{"max_seq_len", "max_model_len", setCount(func(st *Settings) *int { return &st.MaxLen })},
	{"enforce_eager", "enforce_eager", setTrue(func(st *Settings) *bool { return &st.EnforceEager })},
	{"", "max_num_seqs", setCount(func(st *Settings) *int { return &st.MaxNumSeqs })},
	{"", "max_num_batched_tokens", setCount(func(st *Settings) *int { return &st.MaxBatchedTokens })},
	{"", "gpu_memory_utilization", func(_ *Settings, p *PoolFigures, v string) {
		if u, ok := fraction(v); ok {
			p.Utilization = u
		}
	}},
}

// vllmConfig reads the configuration lines: the engine's "Initializing a
// V1 LLM engine (vX) with config: model='…', …" (V0: "Initializing an LLM
// engine"), the API server's "non-default args: {…}" and "Using max model
// len N".
func (r *reader) vllmConfig(s string) bool {
	var list []setting
	dict := false
	switch {
	case strings.Contains(s, "non-default args: {"):
		dict = true
		s = s[strings.Index(s, "non-default args: {"):]
		for _, a := range vllmArgs {
			list = append(list, setting{a.arg, a.set})
		}
	case strings.Contains(s, "LLM engine (v") && strings.Contains(s, "with config:"):
		s = s[strings.Index(s, "with config:"):]
		for _, a := range vllmArgs {
			if a.config != "" {
				list = append(list, setting{a.config, a.set})
			}
		}
	case strings.Contains(s, "Using max model len"):
		n, ok := atoi(s, "Using max model len")
		if ok && n > 0 {
			r.settings.MaxLen, r.stated = n, true
		}
		return ok
	default:
		return strings.Contains(s, "vLLM API server version")
	}
	if readArgs(s, dict, list, &r.settings, &r.pool) {
		r.stated = true
	}
	return true
}

// vllmSampler reads V1's choice of top-k and top-p sampler: FlashInfer's
// kernel, whose warm-up the plan charges less for, or the torch-native
// path, when a vllmNativeSampler line says so; a log with neither does not
// say which ran.
func (r *reader) vllmSampler(s string) bool {
	if strings.Contains(s, planner.VLLMFlashInferSampler) {
		r.settings.FlashInferSampler, r.stated = true, true
		return true
	}
	for _, m := range vllmNativeSampler {
		if strings.Contains(s, m) {
			r.settings.NativeSampler, r.stated = true, true
			return true
		}
	}
	return false
}

// vllmRunner reads whether V1 ran Model Runner V2: the worker's
// planner.VLLMModelRunnerV2 line, or a line of that runner's own file
// beside a V1 figure.
func (r *reader) vllmRunner(s string) bool {
	mrv2 := strings.Contains(s, planner.VLLMModelRunnerV2) ||
		strings.Contains(s, vllmMRV2File) && (strings.Contains(s, "Model loading took") || strings.Contains(s, "Graph capturing finished"))
	if mrv2 {
		r.settings.ModelRunnerV2, r.stated = true, true
	}
	return mrv2
}

// vllmNoCustomAllReduce is what the line says with which a tensor group's
// ranks log that the custom all-reduce is off (Settings.NoCustomAllReduce),
// whichever rank prints it: they decide it together.
const vllmNoCustomAllReduce = "Custom allreduce is disabled"

func (r *reader) vllmCustomAllReduce(s string) bool {
	if !strings.Contains(s, vllmNoCustomAllReduce) {
		return false
	}
	r.settings.NoCustomAllReduce, r.stated = true, true
	return true
}

// SetRun sets in as vLLM V1's log l says the start ran, whatever it was
// asked: the sampler path, the model runner and whether the custom
// all-reduce was off. The corpus plans its entries' launch configurations
// with these alone of the log's lines.
func (l *Log) SetRun(in *planner.Input) {
	in.Serving.VLLM.FlashInferSampler, in.Serving.VLLM.ModelRunnerV2 = l.FlashInferSampler(), l.ModelRunnerV2()
	in.Parallel.NoCustomAllReduce = in.Parallel.NoCustomAllReduce || l.Engine == planner.EngineVLLM && l.Settings != nil && l.Settings.NoCustomAllReduce
}

// ModelRunnerV2 reports whether l is a vLLM V1 log that says Model Runner
// V2 ran (planner.VLLMModelRunnerV2): the runner whose profile and sampler
// state the plan charges by their own rules.
func (l *Log) ModelRunnerV2() bool {
	st := l.Settings
	return l.Engine == planner.EngineVLLM && st != nil && st.ModelRunnerV2 && !st.V0
}

// SamplerStated reports whether l says which top-k and top-p sampler vLLM
// V1 warmed up with, FlashInfer's or the torch-native one.
func (l *Log) SamplerStated() bool {
	st := l.Settings
	return st != nil && (st.FlashInferSampler || st.NativeSampler)
}

// FlashInferSampler reports whether l is a vLLM V1 log that says it
// samples top-k and top-p with FlashInfer's kernel
// (planner.VLLMFlashInferSampler): the sampler whose warm-up the plan
// charges less for. V0 never printed the line; a V1 log without it ran the
// torch-native default.
func (l *Log) FlashInferSampler() bool {
	st := l.Settings
	return l.Engine == planner.EngineVLLM && st != nil && st.FlashInferSampler && !st.V0
}

// vllmInput is the configuration a vLLM log states: its request length
// (max_model_len, else the concurrency line's), utilization, parallel
// sizes, batch limits, eager mode and V1's sampler.
func vllmInput(l *Log, in *planner.Input) error {
	if err := poolInput(l, in); err != nil {
		return err
	}
	if u := l.Pool; u != nil && u.Utilization > 0 && u.Utilization <= 1 {
		in.Serving.VLLM.GPUMemoryUtilization = u.Utilization
	}
	if st := l.Settings; st != nil {
		in.Limits.MaxBatch, in.Limits.MaxPrefillTokens = st.MaxNumSeqs, st.MaxBatchedTokens
		in.Serving.VLLM.EnforceEager = st.EnforceEager
		l.SetRun(in)
		if strings.HasPrefix(st.KVDtype, "fp8") {
			in.Limits.KVDtype = planner.KVDtypeFP8
		}
	}
	return nil
}
