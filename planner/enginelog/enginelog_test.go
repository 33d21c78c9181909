package enginelog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

const h200Dir = "../testdata/engines/llamacpp-h200/"

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// TestLlamaCppLogs reads every llama.cpp log of the H200 validation (the
// model load followed by one context, as llama-server prints them), plans
// the configuration it states and finds the model and KV buffers inside
// the log's 0.01 MiB resolution, the compute buffer within 5 %.
func TestLlamaCppLogs(t *testing.T) {
	var cal planner.Calibration
	readJSON(t, "../../calibrations/h200-linux-cuda13.0.json", &cal)
	models := map[string]string{"dense": "dense-llama3-8b", "dense-ngl20": "dense-llama3-8b", "swa": "swa-gemma3-4b",
		"moe": "moe-qwen3-30b-a3b"}
	n := 0
	for dir, name := range models {
		var m planner.Model
		readJSON(t, h200Dir+"models/"+name+".json", &m)
		load, err := os.ReadFile(h200Dir + "logs/" + dir + "/load.log")
		if err != nil {
			t.Fatal(err)
		}
		ctxs, _ := filepath.Glob(h200Dir + "logs/" + dir + "/*_*.log")
		for _, path := range ctxs {
			data, _ := os.ReadFile(path)
			l, err := Parse(append(append([]byte{}, load...), data...))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			in, err := l.Input(m, cal)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			p, err := planner.PlanMemory(in)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for _, r := range Compare(&l, &p) {
				ok := r.Within
				if r.Key == "compute_buffer" {
					ok = r.Residual*20 <= r.Log && -r.Residual*20 <= r.Log
				}
				if !ok {
					t.Errorf("%s: %s plan %d, log %d (residual %d)", path, r.Key, r.Plan, r.Log, r.Residual)
				}
			}
			n++
		}
	}
	if n != 59 {
		t.Errorf("read %d logs, want 59", n)
	}
}

func TestParseVLLMAndSGLang(t *testing.T) {
	vllm := `INFO 12-01 10:00:00 [gpu_model_runner.py:1234] Model loading took 14.9917 GiB memory and 5.2 seconds
INFO 12-01 10:00:09 [gpu_worker.py:222] Memory profiling takes 4.1 seconds
INFO 12-01 10:00:09 [gpu_worker.py:222] the current vLLM instance can use total_gpu_memory (79.18GiB) x gpu_memory_utilization (0.90) = 71.26GiB
INFO 12-01 10:00:09 [gpu_worker.py:222] model weights take 14.99GiB; non_torch_memory takes 0.13GiB; PyTorch activation peak memory takes 4.76GiB; the rest of the memory reserved for KV Cache is 51.38GiB.
INFO 12-01 10:00:10 [kv_cache_utils.py:716] GPU KV cache size: 420,912 tokens
INFO 12-01 10:00:10 [kv_cache_utils.py:720] Maximum concurrency for 16,000 tokens per request: 26.31x
`
	l, err := Parse([]byte(vllm))
	if err != nil || l.Engine != planner.EngineVLLM || l.Pool == nil || l.Pool.Tokens != 420912 || l.Pool.ConcurrencyLen != 16000 ||
		l.Pool.Utilization != 0.9 {
		t.Fatalf("Parse(vLLM) = %+v, %v", l, err)
	}
	want := map[string]float64{"weights": 14.99, "non_torch": 0.13, "activation_peak": 4.76, "kv": 51.38}
	for _, f := range l.Figures {
		if g := float64(f.Bytes) / float64(planner.GiB); g < want[f.Key]-0.006 || g > want[f.Key]+0.006 {
			t.Errorf("vLLM %s = %.3f GiB, want %.2f", f.Key, g, want[f.Key])
		}
	}
	sg := `[2026-12-01 10:00:00] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=124.10 GB, mem usage=15.27 GB.
[2026-12-01 10:00:02] KV Cache is allocated. #tokens: 806982, K size: 55.41 GB, V size: 55.41 GB
`
	l, err = Parse([]byte(sg))
	if err != nil || l.Engine != planner.EngineSGLang || l.Pool.Tokens != 806982 || len(l.Figures) != 2 {
		t.Fatalf("Parse(SGLang) = %+v, %v", l, err)
	}
	if _, err := Parse([]byte("hello\nworld\n")); err == nil || !strings.Contains(err.Error(), "no memory figures") {
		t.Errorf("Parse(not a log) = %v", err)
	}
}

// FuzzParse: any bytes parse or fail cleanly; figures are never negative.
func FuzzParse(f *testing.F) {
	f.Add([]byte("load_tensors:        CUDA0 model buffer size =  7605.33 MiB\nllama_context: n_ctx         = 4096\n"))
	f.Add([]byte("Model loading took 14.99 GiB memory\nGPU KV cache size: 1,000 tokens\n"))
	f.Add([]byte("KV Cache is allocated. #tokens: 5, K size: 1 GB, V size: 1e9 GB\n"))
	f.Add([]byte("(Worker_TP9999999999 pid=1) Model loading took 1 GiB\n[x TP-1] max_total_num_tokens=9, context_len=\n"))
	f.Add([]byte("non-default args: {'tensor_parallel_size': 'x', 'model': '\nserver_args=ServerArgs(tp_size=0, mem_fraction_static=nan)\n"))
	fixtures, _ := filepath.Glob("testdata/logs/*.log")
	for _, path := range fixtures {
		data, _ := os.ReadFile(path)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			return
		}
		for _, x := range append(l.Figures, l.Reported...) {
			if x.Bytes < 0 || x.Resolution < 0 {
				t.Fatalf("figure %+v", x)
			}
		}
		if len(l.Unread) > MaxUnread {
			t.Fatalf("%d unread lines kept, more than %d", len(l.Unread), MaxUnread)
		}
		if st := l.Settings; st != nil && (st.TensorParallel < 0 || st.Ranks < 0 || st.MaxLen < 0 ||
			!(st.MemFractionStatic >= 0 && st.MemFractionStatic <= 1)) {
			t.Fatalf("settings %+v", *st)
		}
		if p := l.Pool; p != nil && !(p.Utilization >= 0 && p.Utilization <= 1) {
			t.Fatalf("utilization %v", p.Utilization)
		}
	})
}

// BenchmarkParse1MB reads a 1 MB llama-server log: the H200 validation's
// model load and one context, then request lines, as a server prints them.
func BenchmarkParse1MB(b *testing.B) {
	load, err := os.ReadFile(h200Dir + "logs/dense/load.log")
	if err != nil {
		b.Fatal(err)
	}
	ctx, _ := os.ReadFile(h200Dir + "logs/dense/32768_4_0_f16_f16_1_512_0.log")
	data := append(append([]byte{}, load...), ctx...)
	req := []byte("srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200\nslot update_slots: id  0 | task 12 | prompt done, n_past = 1024, n_tokens = 512\n")
	for len(data) < 1<<20 {
		data = append(data, req...)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse1MBPool reads 1 MB of vLLM and of SGLang server logs: the
// published start-ups of testdata/logs, then request lines.
func BenchmarkParse1MBPool(b *testing.B) {
	for _, c := range []struct{ name, log, req string }{
		{"vllm", "testdata/logs/vllm-v0-bamba-tp2.log", "(APIServer pid=33518) INFO 11-18 14:20:01 [loggers.py:123] Engine 000: Avg prompt throughput: 812.4 tokens/s, Avg generation throughput: 95.1 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.1%, Prefix cache hit rate: 61.0%\n" +
			"(APIServer pid=33518) INFO:     127.0.0.1:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"},
		{"sglang", "testdata/logs/sglang-dp-attention.log", "[2026-01-15 14:01:02 DP0 TP0] Decode batch. #running-req: 12, #token: 40211, token usage: 0.21, cuda graph: True, gen throughput (token/s): 811.32, #queue-req: 0\n" +
			"[2026-01-15 14:01:02] INFO:     127.0.0.1:40112 - \"POST /generate HTTP/1.1\" 200 OK\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			data, err := os.ReadFile(c.log)
			if err != nil {
				b.Fatal(err)
			}
			for len(data) < 1<<20 {
				data = append(data, c.req...)
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEveryEngineHasReader: every registered engine's log has a reader,
// whose exact figures are among its figures, and a log of an engine with
// no reader is an error, not another engine's plan.
func TestEveryEngineHasReader(t *testing.T) {
	for _, p := range planner.Profiles()[1:] {
		keys, ok := FigureKeys(p.Name)
		if !ok || len(keys) == 0 {
			t.Errorf("%s has no log reader", p.Name)
		}
		for _, k := range ExactKeys(p.Name) {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: exact figure %s is not one of its figures %v", p.Name, k, keys)
			}
		}
	}
	l := Log{Engine: "stray"}
	if _, err := l.Input(planner.Model{MaxContext: 4096}, planner.Calibration{}); err == nil {
		t.Error("Input of a log of an engine with no reader succeeded")
	}
	if _, ok := FigureKeys("stray"); ok || Version("stray", []byte("build: 1 (x)")) != "" {
		t.Error("an engine with no reader has figures or a version")
	}
}
