package enginelog

// This file reads the configuration that vLLM and SGLang print as argument
// lists — vLLM's "non-default args: {'key': value, …}" dictionary and its
// engine's "with config: key=value, …" line, SGLang's
// "server_args=ServerArgs(key=value, …)" — and the worker prefixes that
// say which rank printed a line. A check plans what the log states, so a
// TP 4 log is planned as four ranks and its own utilization is used; what
// the log does not state, the check says it assumed.

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// Settings is the configuration a vLLM or SGLang log states. A zero field
// is one the log did not state.
type Settings struct {
	// Model is the model path or name the engine loaded.
	Model string `json:"model,omitempty"`
	// Dtype is the weights' dtype as printed ("torch.bfloat16", "auto").
	Dtype string `json:"dtype,omitempty"`
	// Launch holds the settings the plan reads; an engine observation
	// carries them (calibrations/observation.Settings).
	Launch
	// Ranks is one more than the highest tensor-parallel rank a line's
	// worker prefix names (V0: one more than the worker processes), when
	// that is more than one.
	Ranks int `json:"ranks_seen,omitempty"`
	// V0 reports whether the log holds lines only vLLM's V0 engine prints
	// (the default engine before 0.8): "Loading model weights took",
	// "Memory profiling results:", "# GPU blocks:".
	V0 bool `json:"v0_engine,omitempty"`
	// NativeSampler reports whether vLLM V1 logged that it samples top-k
	// and top-p with the torch-native implementation (vllmNativeSampler).
	NativeSampler bool `json:"native_sampler,omitempty"`
	// GPUTotal is the device memory the engine measured (vLLM's
	// total_gpu_memory), in bytes.
	GPUTotal planner.Bytes `json:"gpu_total_bytes,omitempty"`
	// ReleaseFrom and ReleaseUntil bound the release of a vLLM V1 log
	// that states none, as its lines do (release.go): from ReleaseFrom up
	// to, not including, ReleaseUntil; "" bounds nothing. ReleaseBy names
	// the lines.
	ReleaseFrom  string   `json:"release_from,omitempty"`
	ReleaseUntil string   `json:"release_until,omitempty"`
	ReleaseBy    []string `json:"release_by,omitempty"`
	// Given names the settings that were not read from the log but given
	// to the check (its flags), by their JSON names.
	Given []string `json:"given,omitempty"`
}

// Launch is what of a vLLM or SGLang log's settings decides its plan (Log.Input):
// the launch settings, less what names a file or is only compared. vLLM's
// gpu_memory_utilization is PoolFigures.Utilization. A zero field is one
// the log did not state, which the plan leaves at the profile's default.
// Its fields' order and JSON names are an engine observation's canonical
// form, whose digest names the observation: they must not move.
type Launch struct {
	// TensorParallel and PipelineParallel are the parallel sizes.
	TensorParallel   int `json:"tensor_parallel,omitempty"`
	PipelineParallel int `json:"pipeline_parallel,omitempty"`
	// MaxLen is vLLM's max_model_len (max_seq_len) or SGLang's
	// context_length, in tokens.
	MaxLen int `json:"max_len,omitempty"`
	// MemFractionStatic is SGLang's mem_fraction_static.
	MemFractionStatic float64 `json:"mem_fraction_static,omitempty"`
	MaxNumSeqs        int     `json:"max_num_seqs,omitempty"`
	MaxBatchedTokens  int     `json:"max_num_batched_tokens,omitempty"`
	EnforceEager      bool    `json:"enforce_eager,omitempty"`
	// FlashInferSampler reports whether vLLM V1 logged that it samples
	// top-k and top-p with FlashInfer (planner.VLLMFlashInferSampler).
	FlashInferSampler bool `json:"flashinfer_sampler,omitempty"`
	// KVDtype is kv_cache_dtype as printed ("auto", "fp8_e4m3").
	KVDtype string `json:"kv_cache_dtype,omitempty"`
	// ModelRunnerV2 reports whether vLLM V1 logged that it runs Model
	// Runner V2 (planner.VLLMModelRunnerV2, or a line that runner's
	// model_runner.py printed).
	ModelRunnerV2 bool `json:"model_runner_v2,omitempty"`
	// NoCustomAllReduce reports whether vLLM logged that its custom
	// all-reduce is off ("Custom allreduce is disabled …": the group spans
	// nodes, the GPUs lack peer access, more than two PCIe-only GPUs, or
	// --disable-custom-all-reduce; CustomAllreduce.__init__,
	// vllm/distributed/device_communicators/custom_all_reduce.py at
	// upstream 579602aa4), so its buffers were not allocated.
	NoCustomAllReduce bool `json:"no_custom_all_reduce,omitempty"`
}

// setting is one key of an argument list and where its value goes.
type setting struct {
	key string
	set func(st *Settings, p *PoolFigures, v string)
}

func setString(dst func(*Settings) *string) func(*Settings, *PoolFigures, string) {
	return func(st *Settings, _ *PoolFigures, v string) {
		if d := dst(st); *d == "" && v != "None" {
			*d = v
		}
	}
}

func setCount(dst func(*Settings) *int) func(*Settings, *PoolFigures, string) {
	return func(st *Settings, _ *PoolFigures, v string) {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n <= 1<<30 {
			*dst(st) = n
		}
	}
}

// fraction reads a share in (0, 1].
func fraction(v string) (float64, bool) {
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil && f > 0 && f <= 1
}

func setTrue(dst func(*Settings) *bool) func(*Settings, *PoolFigures, string) {
	return func(st *Settings, _ *PoolFigures, v string) { *dst(st) = v == "True" || v == "true" }
}

// readArgs reads the keys of list out of s, an argument list as Python
// prints it: "'key': value" in a dict when dict is set, "key=value" else.
// It reports whether it read any.
func readArgs(s string, dict bool, list []setting, st *Settings, p *PoolFigures) bool {
	read := false
	for _, a := range list {
		if v, ok := argValue(s, a.key, dict); ok {
			a.set(st, p, v)
			read = true
		}
	}
	return read
}

// argValue returns the value of key in s, unquoted.
func argValue(s, key string, dict bool) (string, bool) {
	pat := key + "="
	if dict {
		pat = "'" + key + "': "
	}
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], pat)
		if i < 0 {
			return "", false
		}
		at := off + i
		if dict || at == 0 || strings.IndexByte(" (,{", s[at-1]) >= 0 {
			if v, ok := scalar(s[at+len(pat):]); ok {
				return v, true
			}
			return "", false
		}
		off = at + len(pat)
	}
	return "", false
}

// scalar returns the value at the start of s: a quoted string's text, or
// up to the next separator. It reports false for a value the line cuts
// off (a log copied from a terminal wraps long lines anywhere): a quote
// that does not close, or a value that runs to the line's end, since
// every argument list closes (a dict with '}', ServerArgs with ')', vLLM's
// config line with its compilation_config) after the keys read here; no
// log of planner/enginelog/testdata or of the corpus reads otherwise.
func scalar(s string) (string, bool) {
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		j := strings.IndexByte(s[1:], s[0])
		return s[1 : 1+max(j, 0)], j >= 0 // s[1:1], "", when it does not close
	}
	j := strings.IndexAny(s, ",)} ")
	if j < 0 {
		return s, false
	}
	return s[:j], true
}

// worker is who printed a line: the tensor-, pipeline- and data-parallel
// rank its prefix names, and whether it names any.
type worker struct {
	tp, pp, dp int
	// pid is the process of a V0 "(VllmWorkerProcess pid=N)" line: a
	// worker other than the driver, rank unknown.
	pid   int
	named bool
	// world reports whether tp is the rank's number in the whole layout,
	// as vLLM's "(VllmWorker rank=N …)" prints it (stages.go).
	world bool
}

// other reports whether the line is another rank's than the first: its
// figures are that rank's, and a check compares rank 0's.
func (w worker) other() bool { return w.tp > 0 || w.pp > 0 || w.dp > 0 || w.pid > 0 }

// after reports whether w is a later rank than o: by data-, then
// pipeline-, then tensor-parallel rank, a V0 worker process after them all.
func (w worker) after(o worker) bool {
	a, b := [...]int{w.dp, w.pp, w.tp, w.pid}, [...]int{o.dp, o.pp, o.tp, o.pid}
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// label names w for a person ("TP1", "DP1 PP0 TP2", "pid 4121", "2" for
// a rank in the world), "" for rank 0.
func (w worker) label() string {
	if !w.other() {
		return ""
	}
	if w.pid > 0 {
		return "pid " + strconv.Itoa(w.pid)
	}
	if w.world {
		return strconv.Itoa(w.tp)
	}
	s := "TP" + strconv.Itoa(w.tp)
	if w.pp > 0 || w.dp > 0 {
		s = "PP" + strconv.Itoa(w.pp) + " " + s
	}
	if w.dp > 0 {
		s = "DP" + strconv.Itoa(w.dp) + " " + s
	}
	return s
}

// workerOf reads a line's worker prefix: vLLM's "(VllmWorker rank=1
// pid=…)", "(VllmWorker TP1 pid=…)", "(Worker_TP1 pid=…)",
// "(Worker_PP1_TP0 pid=…)", "(EngineCore_DP1 pid=…)", V0's
// "(VllmWorkerProcess pid=…)", or SGLang's "[date time DP1 TP1]".
func workerOf(s string) worker {
	var w worker
	var tag string
	switch {
	case strings.HasPrefix(s, "("):
		if j := strings.IndexByte(s, ')'); j > 0 && j < 128 {
			tag = s[1:j]
		}
		if strings.HasPrefix(tag, "VllmWorkerProcess pid=") {
			w.pid, _ = strconv.Atoi(tag[len("VllmWorkerProcess pid="):])
			w.named = w.pid > 0
			return w
		}
	case strings.HasPrefix(s, "["):
		if j := strings.IndexByte(s, ']'); j > 0 && j < 128 {
			tag = s[1:j]
		}
	}
	if tag == "" {
		return w
	}
	if n, ok := rankAfter(tag, "rank="); ok {
		w.tp, w.named, w.world = n, true, true
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"TP", &w.tp}, {"PP", &w.pp}, {"DP", &w.dp}} {
		if n, ok := rankAfter(tag, f.name); ok {
			*f.dst, w.named = n, true
		}
	}
	return w
}

// rankAfter returns the number right after name in tag, where name starts
// tag or follows a space, '_' or '('.
func rankAfter(tag, name string) (int, bool) {
	for off := 0; off < len(tag); {
		i := strings.Index(tag[off:], name)
		if i < 0 {
			return 0, false
		}
		at := off + i
		end := at + len(name)
		j := end
		for j < len(tag) && j < end+6 && tag[j] >= '0' && tag[j] <= '9' {
			j++
		}
		if j > end && (at == 0 || strings.IndexByte(" _(", tag[at-1]) >= 0) {
			n, _ := strconv.Atoi(tag[end:j])
			return n, true
		}
		off = end
	}
	return 0, false
}

// Given are settings a check is told for a log: its flags. A zero field
// gives nothing.
type Given struct {
	TensorParallel, PipelineParallel int
	// MaxLen is the request length in tokens.
	MaxLen int
	// Utilization is vLLM's gpu_memory_utilization, MemFractionStatic
	// SGLang's mem_fraction_static.
	Utilization, MemFractionStatic float64
}

// Give sets what g states into l, in place of what the log says, and
// names each in Settings.Given.
func (l *Log) Give(g Given) {
	if g == (Given{}) {
		return
	}
	if l.Settings == nil {
		l.Settings = &Settings{}
	}
	st := &l.Settings.Given
	give := func(name string, ok bool) {
		if ok {
			*st = append(*st, name)
		}
	}
	give("tensor_parallel", g.TensorParallel > 0)
	give("pipeline_parallel", g.PipelineParallel > 0)
	give("max_len", g.MaxLen > 0)
	give("gpu_memory_utilization", g.Utilization > 0)
	give("mem_fraction_static", g.MemFractionStatic > 0)
	s := l.Settings
	if g.TensorParallel > 0 || g.PipelineParallel > 0 {
		s.TensorParallel, s.PipelineParallel = g.TensorParallel, g.PipelineParallel
	}
	if g.MaxLen > 0 {
		s.MaxLen = g.MaxLen
	}
	if g.MemFractionStatic > 0 {
		s.MemFractionStatic = g.MemFractionStatic
	}
	if g.Utilization > 0 {
		if l.Pool == nil {
			l.Pool = &PoolFigures{}
		}
		l.Pool.Utilization = g.Utilization
	}
}
