package corpus_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/planner"
)

// TestLoad reads the checked-in corpus: every entry valid, ids unique,
// each engine's entries present.
func TestLoad(t *testing.T) {
	es := load(t)
	seen := map[string]bool{}
	engines := map[string]int{}
	for i := range es {
		e := &es[i]
		if seen[e.ID] {
			t.Errorf("id %s appears twice", e.ID)
		}
		seen[e.ID] = true
		engines[e.Engine]++
		for k := range e.Figures {
			if _, ok := e.Values[k]; !ok {
				t.Errorf("%s: figure %s quoted but not read", e.ID, k)
			}
		}
	}
	if engines[corpus.EngineVLLM] == 0 || engines[corpus.EngineSGLang] == 0 {
		t.Errorf("entries by engine = %v, want both engines", engines)
	}
}

const goodLog = "INFO 10-14 19:25:01 [gpu_model_runner.py:2653] Model loading took 14.9889 GiB and 132.108878 seconds\n" +
	"INFO 10-14 19:25:51 [kv_cache_utils.py:1087] GPU KV cache size: 38,944 tokens\n" +
	"INFO 10-14 19:25:50 [gpu_worker.py:298] Available KV cache memory: -2.14 GiB\n"

func goodEntry() map[string]any {
	return map[string]any{
		"id": "vllm-0.11.0-x", "engine": "vllm", "version": "0.11.0", "version_from": "log",
		"source":  map[string]any{"url": "https://example.org/a", "date": "2025-10-14", "where": "issue body"},
		"gpu":     map[string]any{"name": "NVIDIA L4", "count": 1, "total_from": "card"},
		"model":   map[string]any{"hf_id": "meta-llama/Llama-3.1-8B-Instruct", "catalog": "llama-3.1-8b-instruct-bf16", "config": "", "family": "dense"},
		"command": "", "config": map[string]any{"max_model_len": 32000, "enforce_eager": false},
		"config_from": map[string]any{"max_model_len": "log", "enforce_eager": "log"},
		"outcome":     "started", "notes": []any{},
		"figures": map[string]any{"weights_gib": "Model loading took 14.9889 GiB", "kv_tokens": "GPU KV cache size: 38,944 tokens",
			"kv_gib": "Available KV cache memory: -2.14 GiB"},
	}
}

func encode(t testing.TB, m map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseGood(t *testing.T) {
	e, err := corpus.Parse(encode(t, goodEntry()), []byte(goodLog))
	if err != nil {
		t.Fatal(err)
	}
	want := map[corpus.FigureKey]float64{corpus.FigureWeights: 14.9889, corpus.FigureKVTokens: 38944, corpus.FigureKVMemory: -2.14}
	for k, v := range want {
		if e.Values[k] != v {
			t.Errorf("Parse(...).Values[%s] = %v, want %v", k, e.Values[k], v)
		}
	}
	cal, err := calibrations.Lookup("est-l4-linux")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.GPU.TotalGiB, float64(cal.DeviceTotal)/float64(planner.GiB); got != want {
		t.Errorf("Parse(an L4 of total_from card).GPU.TotalGiB = %v, want est-l4-linux's %v", got, want)
	}
	if b, err := corpus.BandOf(&e); err != nil || b.Name != "vLLM 0.10–0.11 (V1)" {
		t.Errorf("BandOf(0.11.0) = %q, %v", b.Name, err)
	}
}

// TestParseRejects changes one field of a good entry at a time and wants
// an error naming it.
func TestParseRejects(t *testing.T) {
	for _, c := range []struct {
		name, field string
		edit        func(m map[string]any)
	}{
		{"unknown key", "json", func(m map[string]any) { m["colour"] = "red" }},
		{"id case", "id", func(m map[string]any) { m["id"] = "vLLM-0.11.0-x" }},
		{"id engine", "id", func(m map[string]any) { m["id"] = "sglang-0.11.0-x" }},
		{"engine", "engine", func(m map[string]any) { m["engine"] = "tgi"; m["id"] = "tgi-x" }},
		{"version", "version", func(m map[string]any) { m["version"] = "" }},
		{"no band", "version", func(m map[string]any) { m["version"] = "9" }},
		{"version_from", "version_from", func(m map[string]any) { m["version_from"] = "inferred: " }},
		{"url", "source.url", func(m map[string]any) { m["source"].(map[string]any)["url"] = "http://x" }},
		{"date", "source.date", func(m map[string]any) { m["source"].(map[string]any)["date"] = "2025-13-01" }},
		{"where", "source.where", func(m map[string]any) { m["source"].(map[string]any)["where"] = "" }},
		{"count", "gpu.count", func(m map[string]any) { m["gpu"].(map[string]any)["count"] = 0 }},
		{"total", "gpu.total_gib", func(m map[string]any) {
			m["gpu"].(map[string]any)["total_gib"] = -1
			m["gpu"].(map[string]any)["total_from"] = "log"
		}},
		{"card's total typed in", "gpu.total_gib", func(m map[string]any) { m["gpu"].(map[string]any)["total_gib"] = 22.49 }},
		{"card with no total", "gpu.name", func(m map[string]any) { m["gpu"].(map[string]any)["name"] = "NVIDIA L4000" }},
		{"total_from", "gpu.total_from", func(m map[string]any) { m["gpu"].(map[string]any)["total_from"] = "guess" }},
		{"hf_id", "model.hf_id", func(m map[string]any) { m["model"].(map[string]any)["hf_id"] = "" }},
		{"both", "model", func(m map[string]any) { m["model"].(map[string]any)["config"] = corpus.Dir + "/configs/a.json" }},
		{"neither", "model", func(m map[string]any) { m["model"].(map[string]any)["catalog"] = "" }},
		{"config path", "model.config", func(m map[string]any) {
			m["model"].(map[string]any)["catalog"] = ""
			m["model"].(map[string]any)["config"] = corpus.Dir + "/configs/../../x.json"
		}},
		{"family", "model.family", func(m map[string]any) { m["model"].(map[string]any)["family"] = "dense+dense" }},
		{"config key", "config.tp", func(m map[string]any) { m["config"].(map[string]any)["tp"] = 2 }},
		{"config kind", "config.max_model_len", func(m map[string]any) { m["config"].(map[string]any)["max_model_len"] = 1.5 }},
		{"config_from", "config_from.max_model_len", func(m map[string]any) { m["config_from"].(map[string]any)["max_model_len"] = "memory" }},
		{"config_from extra", "config_from.block_size", func(m map[string]any) { m["config_from"].(map[string]any)["block_size"] = "log" }},
		{"outcome", "outcome", func(m map[string]any) { m["outcome"] = "fine" }},
		{"figure key", "figures.avail_before_load_gib", func(m map[string]any) {
			m["figures"].(map[string]any)["avail_before_load_gib"] = "Load weight begin. avail mem=1 GB"
		}},
		{"figure marker", "figures.kv_tokens", func(m map[string]any) { m["figures"].(map[string]any)["kv_tokens"] = "38,944 tokens" }},
		{"figure not in log", "figures.weights_gib", func(m map[string]any) {
			m["figures"].(map[string]any)["weights_gib"] = "Model loading took 15.0 GiB"
		}},
		{"figure count", "figures.kv_tokens", func(m map[string]any) {
			m["figures"].(map[string]any)["kv_tokens"] = "Available KV cache memory: -2.14"
		}},
	} {
		m := goodEntry()
		c.edit(m)
		_, err := corpus.Parse(encode(t, m), []byte(goodLog))
		var ce *corpus.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: Parse = %v, want a *corpus.Error naming %s", c.name, err, c.field)
		}
	}
}

// TestLoadRejects holds Load to the layout: the id is the file's name and
// the engine its directory.
func TestLoadRejects(t *testing.T) {
	good := encode(t, goodEntry())
	for _, c := range []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"empty", fstest.MapFS{}, "no entries"},
		{"name", fstest.MapFS{"vllm/other.json": {Data: good}, "vllm/other.log": {Data: []byte(goodLog)}}, "the file's name"},
		{"dir", fstest.MapFS{"sglang/vllm-0.11.0-x.json": {Data: good}, "sglang/vllm-0.11.0-x.log": {Data: []byte(goodLog)}}, "in directory"},
		{"no log", fstest.MapFS{"vllm/vllm-0.11.0-x.json": {Data: good}}, "vllm-0.11.0-x.log"},
		{"big", fstest.MapFS{"vllm/vllm-0.11.0-x.json": {Data: good}, "vllm/vllm-0.11.0-x.log": {Data: make([]byte, 1<<20+1)}}, "more than"},
	} {
		if _, err := corpus.Load(c.fs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load = %v, want an error with %q", c.name, err, c.want)
		}
	}
	if es, err := corpus.Load(fstest.MapFS{"vllm/vllm-0.11.0-x.json": {Data: good}, "vllm/vllm-0.11.0-x.log": {Data: []byte(goodLog)}}); err != nil || len(es) != 1 {
		t.Errorf("Load(one good entry) = %d entries, %v", len(es), err)
	}
}

// FuzzParse feeds Parse arbitrary entries and logs: it returns an entry
// or an error, never panics, and every figure of an entry it accepts is
// quoted from a line of its log.
func FuzzParse(f *testing.F) {
	f.Add(encode(f, goodEntry()), []byte(goodLog))
	var paths []string
	for _, engine := range []string{corpus.EngineVLLM, corpus.EngineSGLang} {
		ps, _ := filepath.Glob(filepath.Join(root, corpus.Dir, engine, "*.json"))
		paths = append(paths, ps[:min(len(ps), 4)]...)
	}
	for _, p := range paths {
		meta, err1 := os.ReadFile(p)
		log, err2 := os.ReadFile(strings.TrimSuffix(p, ".json") + ".log")
		if err1 == nil && err2 == nil {
			f.Add(meta, log)
		}
	}
	f.Fuzz(func(t *testing.T, meta, log []byte) {
		e, err := corpus.Parse(meta, log)
		if err != nil {
			return
		}
		for k, q := range e.Figures {
			if !strings.Contains(string(log), q) || q == "" {
				t.Errorf("figure %s: quote %q accepted but not in the log", k, q)
			}
		}
		if _, err := corpus.BandOf(&e); err != nil {
			t.Errorf("accepted entry has no band: %v", err)
		}
	})
}
