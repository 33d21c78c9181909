package cmdline

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    Command
		ignored []string
	}{
		{`llama-server -m model.gguf -c 32768 -np 4 -ctk q8_0 -fa on --port 8080`,
			Command{Engine: planner.EngineLlamaCpp, Model: "model.gguf", CtxSize: 32768,
				Limits:  planner.Limits{MaxBatch: 4, KVDtype: planner.KVDtypeQ8_0},
				Serving: planner.Serving{Engine: planner.EngineLlamaCpp, LlamaCpp: planner.LlamaCppOptions{FlashAttn: planner.FlashAttnOn}}},
			[]string{"--port 8080"}},
		{`/opt/llama.cpp/build/bin/llama-server --model "my model.gguf" --ctx-size=8192 -kvu -ngl 20 -ub 1024 --swa-full -fa -t 16`,
			Command{Engine: planner.EngineLlamaCpp, Model: "my model.gguf", CtxSize: 8192,
				Limits: planner.Limits{MaxPrefillTokens: 1024},
				Serving: planner.Serving{Engine: planner.EngineLlamaCpp, LlamaCpp: planner.LlamaCppOptions{Unified: true, GPULayers: 20,
					SWAFull: true, FlashAttn: planner.FlashAttnOn}}},
			[]string{"-t 16"}},
		{"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32K --max-num-seqs 64 \\\n --gpu-memory-utilization 0.85 --kv-cache-dtype fp8 --enforce-eager --disable-log-requests",
			Command{Engine: planner.EngineVLLM, Model: "meta-llama/Llama-3.1-8B-Instruct",
				Limits: planner.Limits{MaxSeqLen: 32768, MaxBatch: 64, KVDtype: planner.KVDtypeFP8},
				Serving: planner.Serving{Engine: planner.EngineVLLM, VLLM: planner.VLLMOptions{GPUMemoryUtilization: 0.85,
					EnforceEager: true}}},
			[]string{"--disable-log-requests"}},
		{`python -m sglang.launch_server --model-path m --chunked-prefill-size -1`,
			Command{Engine: planner.EngineSGLang, Model: "m",
				Serving: planner.Serving{Engine: planner.EngineSGLang, SGLang: planner.SGLangOptions{ChunkedPrefillOff: true}}}, nil},
		{`vllm serve Qwen/Qwen3-8B --quantization fp8 --max-model-len -1 -tp 1`,
			Command{Engine: planner.EngineVLLM, Model: "Qwen/Qwen3-8B", WeightsDtype: "fp8", AutoLen: true,
				Serving: planner.Serving{Engine: planner.EngineVLLM}, Parallel: planner.Parallel{Tensor: 1}}, nil},
		{`llama-server -hf Qwen/Qwen3-8B-GGUF:Q4_K_M -m /cache/q.gguf --hf-file Qwen3-8B-Q6_K.gguf --no-mmproj`,
			Command{Engine: planner.EngineLlamaCpp, Model: "Qwen/Qwen3-8B-GGUF:Q4_K_M", Hub: true, HubFile: "Qwen3-8B-Q6_K.gguf", NoMmproj: true,
				Serving: planner.Serving{Engine: planner.EngineLlamaCpp}}, nil},
		{`llama-server -m m.gguf -sm layer -ts 3/1 -ngl 99`,
			Command{Engine: planner.EngineLlamaCpp, Model: "m.gguf", Parallel: planner.Parallel{Pipeline: 2, TensorSplit: []float64{3, 1}},
				Serving: planner.Serving{Engine: planner.EngineLlamaCpp, LlamaCpp: planner.LlamaCppOptions{GPULayers: 99}}}, nil},
		{`llama-server -m m.gguf -ts 1,1,2 --split-mode tensor`,
			Command{Engine: planner.EngineLlamaCpp, Model: "m.gguf", Parallel: planner.Parallel{Pipeline: 3, TensorSplit: []float64{1, 1, 2}},
				Serving: planner.Serving{Engine: planner.EngineLlamaCpp}, splitTensor: true}, nil},
		{`vllm serve m --cudagraph-capture-sizes 1 2 4, 8 [16,32] --max-cudagraph-capture-size 32 --max-num-seqs 8`,
			Command{Engine: planner.EngineVLLM, Model: "m", Limits: planner.Limits{MaxBatch: 8},
				Serving: planner.Serving{Engine: planner.EngineVLLM, VLLM: planner.VLLMOptions{MaxCaptureSize: 32,
					CaptureSizes: &[]int{1, 2, 4, 8, 16, 32}}}}, nil},
		{`vllm serve m -cc '{"cudagraph_capture_sizes": [1, 2, 4], "max_cudagraph_capture_size": 4, "level": 3}' --compilation-config 3`,
			Command{Engine: planner.EngineVLLM, Model: "m",
				Serving: planner.Serving{Engine: planner.EngineVLLM, VLLM: planner.VLLMOptions{MaxCaptureSize: 4, CaptureSizes: &[]int{1, 2, 4}}}},
			[]string{`-cc {"level":3}`, "--compilation-config 3"}},
		{`vllm serve --cudagraph-capture-sizes "[1, 2, 4]" m`,
			Command{Engine: planner.EngineVLLM, Model: "m",
				Serving: planner.Serving{Engine: planner.EngineVLLM, VLLM: planner.VLLMOptions{CaptureSizes: &[]int{1, 2, 4}}}}, nil},
		{`vllm serve m -tp 8 --pipeline-parallel-size 2 --enable-expert-parallel`,
			Command{Engine: planner.EngineVLLM, Model: "m", Serving: planner.Serving{Engine: planner.EngineVLLM},
				Parallel: planner.Parallel{Tensor: 8, Pipeline: 2}, ExpertAll: true}, nil},
		{`python -m sglang.launch_server --model-path m --tp 4 --ep-size 2 --dp 2`,
			Command{Engine: planner.EngineSGLang, Model: "m", Serving: planner.Serving{Engine: planner.EngineSGLang},
				Parallel: planner.Parallel{Tensor: 4, Expert: 2, Data: 2}}, nil},
		{`python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768 --mem-fraction-static 0.8 --page-size 16 --host 0.0.0.0`,
			Command{Engine: planner.EngineSGLang, Model: "Qwen/Qwen3-8B",
				Limits:  planner.Limits{MaxSeqLen: 32768, BlockTokens: 16},
				Serving: planner.Serving{Engine: planner.EngineSGLang, SGLang: planner.SGLangOptions{MemFractionStatic: 0.8}}},
			[]string{"--host 0.0.0.0"}},
	} {
		got, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q) = %v", tc.line, err)
			continue
		}
		ignored := got.Ignored
		got.Ignored = nil
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(ignored, tc.ignored) {
			t.Errorf("Parse(%q)\n = %+v, ignored %q\nwant %+v, ignored %q", tc.line, got, ignored, tc.want, tc.ignored)
		}
	}
}

// TestSplitModeRow: -sm row is refused with llama.cpp's own reason at the
// pinned version (its CUDA backend has no split buffer type), not as a
// mode vramplan leaves out.
func TestSplitModeRow(t *testing.T) {
	_, err := Parse(`llama-server -m m.gguf -ngl 99 -sm row -ts 3,1`)
	var e *Error
	if !errors.As(err, &e) || e.Flag != "-sm" || !strings.Contains(e.Msg, "does not support split buffers") ||
		!strings.Contains(e.Msg, planner.LlamaCppVersion) || !strings.Contains(e.Msg, "-sm layer") {
		t.Errorf("Parse(-sm row) = %v, want the -sm error naming llama.cpp's refusal and -sm layer", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ line, flag string }{
		{`llama-server -m m.gguf -sm row -ts 1,1`, "-sm"},
		{`llama-server -m m.gguf --split-mode columns`, "--split-mode"},
		{`llama-server -m m.gguf -ts 1,x`, "-ts"},
		{`llama-server -m m.gguf -ts 1,-1`, "-ts"},
		{`llama-server -m m.gguf -sm rows`, "-sm"},
		{`llama-server -m m.gguf --n-cpu-moe 10`, "--n-cpu-moe"},
		{`llama-server -m m.gguf -ngl 0`, "-ngl"},
		{`llama-server -m m.gguf -ctk q5_1`, "-ctk"},
		{`llama-server -m m.gguf -c`, "-c"},
		{`llama-server -m m.gguf -c lots`, "-c"},
		{`llama-server -c 4096`, "model"},
		{`vllm serve m --tensor-parallel-size 0`, "--tensor-parallel-size"},
		{`vllm serve m --cpu-offload-gb 4`, "--cpu-offload-gb"},
		{`vllm serve m --gpu-memory-utilization 1.5`, "--gpu-memory-utilization"},
		{`vllm serve m --kv-cache-dtype int3`, "--kv-cache-dtype"},
		{`vllm serve m --cudagraph-capture-sizes 0 8`, "--cudagraph-capture-sizes"},
		{`vllm serve m --cudagraph-capture-sizes 1,x`, "--cudagraph-capture-sizes"},
		{`vllm serve m --cudagraph-capture-sizes`, "--cudagraph-capture-sizes"},
		{`vllm serve m --max-cudagraph-capture-size many`, "--max-cudagraph-capture-size"},
		{`vllm serve m --compilation-config '{"cudagraph_capture_sizes": [0]}'`, "--compilation-config"},
		{`vllm serve m -cc '{"max_cudagraph_capture_size": "big"}'`, "-cc"},
		{`python -m sglang.launch_server --model-path m --tp four`, "--tp"},
		{`python -m sglang.launch_server --model-path m --max-total-tokens 9000`, "--max-total-tokens"},
		{`python -m sglang.launch_server --model-path m --chunked-prefill-size -2`, "--chunked-prefill-size"},
		{`ollama run llama3`, "command line"},
		{`llama-server -m 'unterminated`, "command line"},
		{``, "command line"},
	} {
		_, err := Parse(tc.line)
		var e *Error
		if !errors.As(err, &e) || e.Flag != tc.flag {
			t.Errorf("Parse(%q) = %v, want an error naming %s", tc.line, err, tc.flag)
		}
	}
}

func TestApply(t *testing.T) {
	m := planner.Model{MaxContext: 131072}
	c, _ := Parse(`llama-server -m m.gguf -c 32768 -np 4 -b 256`)
	in := planner.Input{Model: m}
	if _, err := c.Apply(&in); err != nil {
		t.Fatal(err)
	}
	if l := in.Limits; l.MaxBatch != 4 || l.MaxSeqLen != 8192 || l.MaxPrefillTokens != 256 {
		t.Errorf("-c 32768 -np 4 -b 256 = %+v, want batch 4 of 8192 tokens, ubatch 256", l)
	}
	c, _ = Parse(`llama-server -m m.gguf`)
	notes, _ := c.Apply(&in)
	if l := in.Limits; l.MaxBatch != 4 || l.MaxSeqLen != 32768 || !in.Serving.LlamaCpp.Unified || len(notes) != 2 {
		t.Errorf("llama-server defaults = %+v unified %v notes %q, want 4 unified slots over the trained 131072", l,
			in.Serving.LlamaCpp.Unified, notes)
	}
	c, _ = Parse(`vllm serve m`)
	if _, err := c.Apply(&in); err != nil || in.Limits.MaxSeqLen != 131072 {
		t.Errorf("vllm serve m: max_seq_len %d, %v; want the trained context", in.Limits.MaxSeqLen, err)
	}
}

// TestApplySplitTensor: -sm tensor makes -ts's devices tensor-parallel
// (whichever flag comes first), a later -sm layer undoes it, and without
// -ts the device count is asked for by -sm.
func TestApplySplitTensor(t *testing.T) {
	for _, tc := range []struct {
		line   string
		tp, pp int
	}{
		{`llama-server -m m.gguf -sm tensor -ts 3,1`, 2, 0},
		{`llama-server -m m.gguf -ts 1/1/1/1 -sm tensor`, 4, 0},
		{`llama-server -m m.gguf -sm tensor -ts 1,1 -sm layer`, 0, 2},
	} {
		c, err := Parse(tc.line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.line, err)
		}
		in := planner.Input{Model: planner.Model{MaxContext: 8192}}
		if _, err := c.Apply(&in); err != nil || in.Parallel.Tensor != tc.tp || in.Parallel.Pipeline != tc.pp {
			t.Errorf("%s: tensor_parallel %d, pipeline_parallel %d (%v); want %d, %d", tc.line, in.Parallel.Tensor,
				in.Parallel.Pipeline, err, tc.tp, tc.pp)
		}
	}
	c, _ := Parse(`llama-server -m m.gguf -sm tensor`)
	in := planner.Input{Model: planner.Model{MaxContext: 8192}}
	_, err := c.Apply(&in)
	var e *Error
	if !errors.As(err, &e) || e.Flag != "-sm" || !strings.Contains(e.Msg, "give -ts") {
		t.Errorf("-sm tensor without -ts: %v, want an -sm error asking for -ts", err)
	}
}

// FuzzParse: any line parses or fails with an *Error, never a panic; what
// parses names an engine and a model.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`llama-server -m m.gguf -c 32768 -np 4 -ctk q8_0 -fa on`, `vllm serve m --max-model-len=8k`,
		`python -m sglang.launch_server --model-path m --mem-fraction-static 0.9`, `llama-server "a\"b" 'c' \`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Parse(line)
		var e *Error
		if err != nil {
			if !errors.As(err, &e) {
				t.Fatalf("Parse error %T %v, want *Error", err, err)
			}
			return
		}
		if c.Engine == "" || c.Model == "" {
			t.Fatalf("Parse(%q) = %+v: no engine or model", line, c)
		}
		in := planner.Input{Model: planner.Model{MaxContext: 4096}}
		c.Apply(&in)
	})
}

// TestEveryEngineHasDialect: every registered engine has a command line
// whose flags each have one meaning, its options are among its flags, and
// an engine without a command line is an error, not another's.
func TestEveryEngineHasDialect(t *testing.T) {
	for _, p := range planner.Profiles()[1:] {
		d := dialectOf(p.Name)
		if d == nil {
			t.Errorf("%s has no dialect", p.Name)
			continue
		}
		seen := map[string]bool{}
		for i := range d.flags {
			f := &d.flags[i]
			for _, n := range f.names {
				if !strings.HasPrefix(n, "-") || seen[n] || d.lookup(n) != f {
					t.Errorf("%s: flag %q is not a flag name of one flag", p.Name, n)
				}
				seen[n] = true
			}
		}
	}
	for _, o := range Options() {
		if f := dialectOf(o.Engine).lookup("--" + o.Name); f == nil || f.option != o.Usage {
			t.Errorf("option %s is not %s's flag --%s", o.Name, o.Engine, o.Name)
		}
	}
	c := Command{Engine: "stray", Model: "m"}
	if _, err := c.Apply(&planner.Input{}); err == nil {
		t.Error("Apply of an engine with no command line succeeded")
	}
	if err := SetOption(&planner.Input{}, "threads", "4"); err == nil {
		t.Error("SetOption(threads) succeeded")
	}
}

// TestSetOption: an option reads its value as the engine's flag does.
func TestSetOption(t *testing.T) {
	in := planner.Input{Serving: planner.Serving{Engine: planner.EngineLlamaCpp}}
	for _, o := range [][2]string{{"flash-attn", "off"}, {"gpu-layers", "20"}, {"kv-unified", "true"}} {
		if err := SetOption(&in, o[0], o[1]); err != nil {
			t.Fatalf("SetOption(%s, %s): %v", o[0], o[1], err)
		}
	}
	if o := in.Serving.LlamaCpp; o.FlashAttn != planner.FlashAttnOff || o.GPULayers != 20 || !o.Unified {
		t.Errorf("llama.cpp options = %+v", o)
	}
	if err := SetOption(&in, "gpu-memory-utilization", "2"); err == nil {
		t.Error("--gpu-memory-utilization 2 accepted")
	}
}

// TestCountTooLarge checks that a count or length flag of too many digits,
// or a parallel size past planner.MaxParallel, is said to be too large, not
// "not a count" or "not a length", and that a value that is no number at
// all, or one below the flag's range, still says what the flag wants.
func TestCountTooLarge(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`vllm serve m --max-model-len 99999999999999999999`, "too large"},
		{`vllm serve m --max-model-len 2000000000000k`, "too large"},
		{`vllm serve m --max-num-seqs 99999999999999999999`, "too large"},
		{`python -m sglang.launch_server --model-path m --chunked-prefill-size 99999999999999999999`, "too large"},
		{`llama-server -m m.gguf -c 99999999999999999999`, "too large"},
		{`vllm serve m --tensor-parallel-size 99999999999999999999`, `is too large (more than 1024`},
		{`vllm serve m -tp 2048`, `"2048" is too large (more than 1024`},
		{`vllm serve m -tp 2K`, `"2K" is too large (more than 1024`},
		{`python -m sglang.launch_server --model-path m --tp -2`, `"-2" is not a count in [1, 1024]`},
		{`python -m sglang.launch_server --model-path m --dp-size 0`, `"0" is not a count in [1, 1024]`},
		{`llama-server -m m.gguf -ngl 99999999999999999999`, "too large"},
		{`llama-server -m m.gguf -ngl -1`, `"-1" is not a layer count`},
		{`vllm serve m --max-model-len lots`, `"lots" is not a length`},
		{`python -m sglang.launch_server --model-path m --chunked-prefill-size x`, `"x" is not a count or -1`},
	} {
		_, err := Parse(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error saying %s", tc.line, err, tc.want)
		}
	}
}
