package observation

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

const grid = "../../planner/testdata/engines/llamacpp-h200"

// h200GPU is the validation card as its llama.cpp logs name it.
var h200GPU = GPU{Name: "NVIDIA H200", TotalMiB: 143155}

// gridObservation reads one run of the checked-in llama.cpp grid: the
// model's load log and the context's log, as one start-up prints them.
func gridObservation(t testing.TB, model, config string) Observation {
	t.Helper()
	load, err := os.ReadFile(filepath.Join(grid, "logs", model, "load.log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := os.ReadFile(filepath.Join(grid, "logs", model, config+".log"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enginelog.Parse(append(load, ctx...))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(model, "-ngl20")
	shapes, _ := filepath.Glob(filepath.Join(grid, "models", name+"-*.json"))
	if len(shapes) != 1 {
		t.Fatalf("model %s: %d shapes", model, len(shapes))
	}
	data, err := os.ReadFile(shapes[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := planner.ParseModel(data)
	if err != nil {
		t.Fatal(err)
	}
	return FromLog(&l, m, h200GPU, "b12072", "2026-11-30", "")
}

func TestGridObservations(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(grid, "logs", "*", "*_*.log"))
	if len(logs) != 59 {
		t.Fatalf("%d grid logs, want 59", len(logs))
	}
	for _, path := range logs {
		model, config := filepath.Base(filepath.Dir(path)), strings.TrimSuffix(filepath.Base(path), ".log")
		o := gridObservation(t, model, config)
		doc := Format(&o)
		ch, err := Check(doc)
		if err != nil {
			t.Fatalf("%s/%s: Check: %v", model, config, err)
		}
		if held := Held(&ch.Observation); len(held) > 0 {
			t.Errorf("%s/%s: held: %v", model, config, held)
		}
		if bytes.Contains(ch.Document, []byte("/tmp")) || bytes.Contains(ch.Document, []byte(".gguf")) {
			t.Errorf("%s/%s: the document names a file:\n%s", model, config, ch.Document)
		}
		again, err := Check(ch.Document)
		if err != nil || again.Digest != ch.Digest || !bytes.Equal(again.Document, ch.Document) {
			t.Errorf("%s/%s: the canonical form checks to %v, %v; want itself", model, config, again.Digest, err)
		}
	}
}

func TestHeld(t *testing.T) {
	o := gridObservation(t, "dense", "4096_4_1_f16_f16_0_512_0")
	for i := range o.Figures {
		if o.Figures[i].Key == "kv" {
			o.Figures[i].Bytes += 8 << 20
		}
	}
	ch, err := Check(Format(&o))
	if err != nil {
		t.Fatal(err)
	}
	if held := Held(&ch.Observation); len(held) != 1 || !strings.Contains(held[0], "kv is") {
		t.Errorf("Held(kv + 8 MiB) = %q, want the KV buffer's contradiction", held)
	}
}

// TestHeldEstimate holds issue 31's point 7 on the server's side: a
// compute buffer 3× or 0.01× the plan's is held (both were accepted), and
// one within HeldFactor, as a refit may move it, is not.
func TestHeldEstimate(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		held  bool
	}{{3, true}, {0.01, true}, {2.5, true}, {0.3, true}, {1.5, false}, {0.6, false}, {1, false}} {
		o := gridObservation(t, "dense", "4096_4_1_f16_f16_0_512_0")
		for i := range o.Figures {
			if f := &o.Figures[i]; f.Key == "compute_buffer" {
				f.Bytes = int64(float64(f.Bytes) * tc.scale)
			}
		}
		ch, err := Check(Format(&o))
		if err != nil {
			t.Fatal(err)
		}
		held := Held(&ch.Observation)
		if got := len(held) > 0; got != tc.held || got && !strings.Contains(held[0], "compute_buffer is") {
			t.Errorf("Held(compute × %v) = %q, want held %v", tc.scale, held, tc.held)
		}
	}
}

func TestModelDigest(t *testing.T) {
	a := gridObservation(t, "dense", "4096_4_1_f16_f16_0_512_0")
	b := gridObservation(t, "dense", "32768_1_0_f16_f16_1_512_0")
	b.Model.Shape.ID, b.Model.Shape.Source = "someone-else.gguf", "/home/someone/models/x.gguf"
	ca, _ := Check(Format(&a))
	cb, err := Check(Format(&b))
	if err != nil {
		t.Fatal(err)
	}
	if ca.ModelDigest != cb.ModelDigest || ca.Digest == cb.Digest {
		t.Errorf("model digests %s, %s (want equal), digests %s, %s (want different)", ca.ModelDigest, cb.ModelDigest, ca.Digest, cb.Digest)
	}
	if bytes.Contains(cb.Document, []byte("someone")) {
		t.Errorf("the canonical form keeps the shape's id or source:\n%s", cb.Document)
	}
}

func TestRefused(t *testing.T) {
	good := string(Format(ptr(gridObservation(t, "dense", "4096_4_1_f16_f16_0_512_0"))))
	for _, tt := range []struct {
		name, old, new, field string
	}{
		{"schema", `"vramplan.observation/v1"`, `"vramplan.observation/v9"`, "schema"},
		{"engine", `"engine": "llama.cpp"`, `"engine": "tgi"`, "engine"},
		{"version with a path", `"b12072"`, `"/home/me/llama.cpp"`, "engine_version"},
		{"version with markup", `"b12072"`, `"<script>"`, "engine_version"},
		{"a time", `"2026-11-30"`, `"2026-11-30T10:11:12Z"`, "day"},
		{"no such day", `"2026-11-30"`, `"2026-02-30"`, "day"},
		{"gpu markup", `"NVIDIA H200"`, `"<b>H200</b>"`, "gpu.name"},
		{"gpu total", `"total_mib": 143155`, `"total_mib": 1e30`, "gpu.total_mib"},
		{"gpu total negative", `"total_mib": 143155`, `"total_mib": -5`, "gpu.total_mib"},
		{"unknown field", `"day":`, `"hostname": "gpu-box-7", "day":`, "hostname"},
		{"uuid", `"total_mib": 143155`, `"total_mib": 143155, "uuid": "GPU-1234"`, "uuid"},
		{"doubled key", `"day": "2026-11-30",`, `"day": "2026-11-30", "DAY": "2026-12-01",`, "day"},
		{"catalog path", `"model": {`, `"model": {"catalog": "../../etc/passwd",`, "model.catalog"},
		{"n_ctx", `"n_ctx": 4096`, `"n_ctx": 0`, "llama_cpp.n_ctx"},
		{"type_k", `"type_k": "f16"`, `"type_k": "q5_1"`, "llama_cpp.type_k"},
		{"figure key", `"key": "weights"`, `"key": "secret"`, "figures[0].key"},
		{"figure twice", `"key": "compute_buffer"`, `"key": "weights"`, "figures[2].key"},
		{"figure bytes", `"resolution_bytes": 5242`, `"resolution_bytes": -1`, "figures[0].resolution_bytes"},
		{"figure fraction", `"bytes": 7974`, `"bytes": 7974.5e-3`, "figures.bytes"},
		{"shape", `"hidden_size": 4096`, `"hidden_size": -1`, "model.shape"},
		{"trailing", "}\n", "} {}", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(good, tt.old, tt.new, 1)
			if doc == good {
				t.Fatalf("%q is not in the document:\n%s", tt.old, good)
			}
			_, err := Check([]byte(doc))
			var rej *community.Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Check = %v, want a rejection", err)
			}
			if rej.Reasons[0].Field != tt.field {
				t.Errorf("Check refused %q (%v), want the field %q", rej.Reasons[0].Field, err, tt.field)
			}
		})
	}
	if _, err := Check(bytes.Repeat([]byte(" "), MaxSize+1)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Check(oversized) = %v, want the size refused", err)
	}
}

func ptr[T any](v T) *T { return &v }

// poolObservation is the observation of a vLLM or SGLang log of
// planner/enginelog's test data, with a shape of the llama.cpp grid.
func poolObservation(t testing.TB, log, shape string) Observation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../planner/enginelog/testdata/logs", log))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enginelog.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(grid, "models", shape))
	if err != nil {
		t.Fatal(err)
	}
	m, err := planner.ParseModel(js)
	if err != nil {
		t.Fatal(err)
	}
	return FromLog(&l, m, h200GPU, "0.11.0", "2026-11-30", "")
}

// FuzzCheck holds Check to its contract on any input: it returns, without
// panicking, a rejection or a canonical document that checks to itself.
func FuzzCheck(f *testing.F) {
	o := gridObservation(f, "swa", "4096_4_1_f16_f16_0_512_0")
	f.Add(Format(&o))
	v2 := poolObservation(f, "vllm-v1-0.21-tp4-rtx3090.log", "moe-qwen3-30b-a3b.json")
	if v2.Settings == nil {
		f.Fatal("a TP 4 log's observation carries no settings")
	}
	doc := Format(&v2)
	f.Add(doc)
	f.Add(bytes.Replace(doc, []byte(SchemaSettings), []byte(Schema), 1)) // settings under v1: refused
	f.Add([]byte(`{"schema":"vramplan.observation/v2","engine":"sglang","settings":{"tensor_parallel":1e9,"kv_cache_dtype":"../x"},"figures":[]}`))
	f.Add([]byte(`{"schema":"vramplan.observation/v1","engine":"vllm","figures":[{"key":"kv","bytes":1}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ch, err := Check(data)
		if err != nil {
			var rej *community.Rejection
			if !errors.As(err, &rej) || len(rej.Reasons) == 0 {
				t.Fatalf("Check error %v is not a rejection with reasons", err)
			}
			return
		}
		again, err := Check(ch.Document)
		if err != nil || again.Digest != ch.Digest {
			t.Fatalf("the canonical form does not check to itself: %v\n%s", err, ch.Document)
		}
	})
}

func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		engine planner.EngineName
		log    string
		want   string
	}{
		{planner.EngineLlamaCpp, "build: 12072 (81ff7abe) with cc (GCC) 13.3.0 for x86_64-linux-gnu\nllama_context: n_ctx = 4096", "b12072"},
		{planner.EngineLlamaCpp, "llama_context: n_ctx = 4096", ""},
		{planner.EngineLlamaCpp, "build: ../../etc (x)", ""},
		{planner.EngineVLLM, "INFO 10-01 api_server.py:1234] vLLM API server version 0.11.0\n", "0.11.0"},
		{planner.EngineVLLM, "Initializing a V1 LLM engine (v0.10.1.1) with config", "0.10.1.1"},
		{planner.EngineSGLang, "KV Cache is allocated. #tokens: 1000", ""},
	} {
		if got := Version(tt.engine, []byte(tt.log)); got != tt.want {
			t.Errorf("Version(%s, %q) = %q, want %q", tt.engine, tt.log, got, tt.want)
		}
	}
}
