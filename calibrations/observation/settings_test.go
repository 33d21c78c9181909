package observation_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

const root = "../.."

// checkInput is the input `vramplan check` plans for log l on model m and
// calibration cal, its release given as version when the log states none.
func checkInput(t *testing.T, l *enginelog.Log, m planner.Model, cal planner.Calibration, version string) planner.Input {
	t.Helper()
	in, err := l.Input(m, cal)
	if err != nil {
		t.Fatalf("Log.Input: %v", err)
	}
	if l.Version == "" {
		in.Serving.Version = version
	}
	in.Model.ID, in.Model.Source = "", ""
	return in
}

// replanned is the input the refit plans for the observation of l, after
// the document has been written and checked as an upload is.
func replanned(t *testing.T, l *enginelog.Log, m planner.Model, cal planner.Calibration, version string) (planner.Input, observation.Observation) {
	t.Helper()
	gpu := observation.GPU{Name: cal.GPU, TotalMiB: int64(cal.DeviceTotal / planner.MiB)}
	if l.Version != "" {
		version = l.Version
	}
	o := observation.FromLog(l, m, gpu, version, "2026-11-30", "")
	ch, err := observation.Check(observation.Format(&o))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	back := observation.Log(&ch.Observation)
	in, err := back.Input(ch.Observation.Model.Shape, cal)
	if err != nil {
		t.Fatalf("the observation's Log.Input: %v", err)
	}
	return in, ch.Observation
}

// TestPlannedAsChecked holds an observation's plan to its check's: every
// run of the corpus of real vLLM and SGLang start-ups, read from its log,
// written as an observation, checked as an upload is and read back, plans
// the input the check planned — its parallel sizes, request length,
// utilization or fraction and release among it. Before settings were
// carried, a TP 4 run's observation was refit as one GPU.
func TestPlannedAsChecked(t *testing.T) {
	entries, err := corpus.Load(os.DirFS(filepath.Join(root, corpus.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	var n, multi, settings int
	for i := range entries {
		e := &entries[i]
		version := corpus.Release(e)
		in, _, err := corpus.Input(e, root)
		if err != nil || version == "" {
			continue // no model shape, or a release no check could be given
		}
		l, err := enginelog.Parse([]byte(e.Log))
		if err != nil || l.Engine != planner.EngineName(e.Engine) {
			continue
		}
		if _, err := l.Input(in.Model, in.Calibration); err != nil {
			continue // the log states no request length, and the check asks for one
		}
		want := checkInput(t, &l, in.Model, in.Calibration, version)
		if _, err := planner.Report(want); isVersionError(err) {
			continue // check refuses a release its profile has no rules for, and writes no observation
		}
		got, o := replanned(t, &l, in.Model, in.Calibration, version)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the observation plans %s; want the check's %s", e.ID, brief(&got), brief(&want))
		}
		n++
		if want.Parallel.Tensor*max(want.Parallel.Pipeline, 1) > 1 {
			multi++
		}
		if o.Settings != nil {
			settings++
			if o.Schema != observation.SchemaSettings {
				t.Errorf("%s: a document with settings is %q", e.ID, o.Schema)
			}
		}
	}
	if n < 20 || multi < 5 || settings < 10 {
		t.Errorf("%d corpus runs replanned, %d of them on more than one GPU, %d with settings: want at least 20, 5 and 10", n, multi, settings)
	}
}

// TestPlannedAsGiven holds an observation to the settings a check was
// given by its flags (enginelog.Given) for what its log did not state.
func TestPlannedAsGiven(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "planner/enginelog/testdata/logs/vllm-v1-l40s-llama31-8b.log"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enginelog.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	l.Give(enginelog.Given{TensorParallel: 2, PipelineParallel: 2, MaxLen: 4096, Utilization: 0.8})
	m, cal := shapeAndGPU(t, "llama-3.1-8b-instruct-bf16", "NVIDIA L40S")
	want := checkInput(t, &l, m, cal, "0.11.0")
	got, o := replanned(t, &l, m, cal, "0.11.0")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the observation plans %s; want the check's %s", brief(&got), brief(&want))
	}
	if got.Parallel.Tensor != 2 || got.Parallel.Pipeline != 2 || got.Limits.MaxSeqLen != 4096 || got.Serving.VLLM.GPUMemoryUtilization != 0.8 {
		t.Errorf("the observation plans TP %d PP %d, length %d, utilization %v; want the given 2, 2, 4096, 0.8",
			got.Parallel.Tensor, got.Parallel.Pipeline, got.Limits.MaxSeqLen, got.Serving.VLLM.GPUMemoryUtilization)
	}
	if o.Schema != observation.SchemaSettings || o.Settings == nil {
		t.Errorf("the document is %q with settings %+v; want %q with them", o.Schema, o.Settings, observation.SchemaSettings)
	}
}

func isVersionError(err error) bool {
	var ie *planner.InputError
	return errors.As(err, &ie) && ie.Field == "serving.version"
}

// brief is what of an input the settings decide.
func brief(in *planner.Input) string {
	return fmt.Sprintf("{parallel %v, limits %+v, serving %+v, features %+v}", in.Parallel, in.Limits, in.Serving, in.Features)
}

func shapeAndGPU(t *testing.T, model, gpu string) (planner.Model, planner.Calibration) {
	t.Helper()
	e := corpus.Entry{ID: "vllm-x", Engine: corpus.EngineVLLM, Version: "0.11.0", GPU: corpus.GPU{Name: gpu, Count: 1, TotalGiB: 44.42},
		Model: corpus.Model{Catalog: model, Family: "dense"}}
	in, _, err := corpus.Input(&e, root)
	if err != nil {
		t.Fatal(err)
	}
	return in.Model, in.Calibration
}

// TestOldDocuments holds a v1 document, written before settings were
// carried, to what it meant: it still checks, to the same digest, and is
// planned on one GPU; and each schema refuses what the other holds.
func TestOldDocuments(t *testing.T) {
	v1 := `{"schema":"vramplan.observation/v1","engine":"vllm","engine_version":"0.11.0","day":"2026-11-30",` +
		`"gpu":{"name":"NVIDIA H200","total_mib":143155},"model":{"catalog":"llama-3.1-8b-instruct-bf16","shape":SHAPE},` +
		`"pool":{"tokens":100000,"concurrency_len":8192},"figures":[{"key":"weights","bytes":16060522496,"resolution_bytes":5368709}]}`
	m, _ := shapeAndGPU(t, "llama-3.1-8b-instruct-bf16", "NVIDIA H200")
	m.ID, m.Source = "", ""
	shape, err := json.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	v1 = strings.Replace(v1, "SHAPE", string(shape), 1)
	ch, err := observation.Check([]byte(v1))
	if err != nil {
		t.Fatalf("Check(v1) = %v", err)
	}
	again, err := observation.Check(ch.Document)
	if err != nil || again.Digest != ch.Digest || again.Observation.Schema != observation.Schema {
		t.Errorf("the v1 document's canonical form checks to %v, %q, %q; want itself, v1", err, again.Digest, again.Observation.Schema)
	}
	l := observation.Log(&ch.Observation)
	in, err := l.Input(m, observation.Calibration(&ch.Observation))
	if err != nil || in.Parallel.Tensor != 0 || in.Parallel.Pipeline != 0 || in.Limits.MaxSeqLen != 8192 {
		t.Errorf("a v1 document plans TP %d PP %d, length %d (%v); want one GPU at the concurrency line's 8192",
			in.Parallel.Tensor, in.Parallel.Pipeline, in.Limits.MaxSeqLen, err)
	}
	for _, tt := range []struct{ name, old, new string }{
		{"v1 with settings", `"figures":`, `"settings":{"tensor_parallel":4},"figures":`},
		{"v2 without", `observation/v1`, `observation/v2`},
	} {
		doc := strings.Replace(string(ch.Document), tt.old, tt.new, 1)
		if tt.name == "v1 with settings" {
			doc = strings.Replace(v1, tt.old, tt.new, 1)
		}
		_, err := observation.Check([]byte(doc))
		var rej *community.Rejection
		if !errors.As(err, &rej) || rej.Reasons[0].Field != "schema" {
			t.Errorf("%s: Check = %v, want the schema refused", tt.name, err)
		}
	}
}

// TestSettingsEncoding pins the canonical encoding of a settings block with
// every field set, byte for byte, and holds each field through FromLog, the
// document and Log back: an observation's digest names it, so the block's
// keys and their order must not move when its Go form does.
func TestSettingsEncoding(t *testing.T) {
	m, cal := shapeAndGPU(t, "llama-3.1-8b-instruct-bf16", "NVIDIA H200")
	st := &enginelog.Settings{Model: "m", Dtype: "auto", Ranks: 4, V0: true, GPUTotal: planner.GiB, Given: []string{"max_len"}}
	st.TensorParallel, st.PipelineParallel, st.MaxLen, st.MemFractionStatic = 2, 3, 8192, 0.5
	st.MaxNumSeqs, st.MaxBatchedTokens, st.EnforceEager, st.FlashInferSampler, st.KVDtype = 16, 2048, true, true, "fp8_e4m3"
	st.ModelRunnerV2 = true
	l := &enginelog.Log{Engine: planner.EngineVLLM, Settings: st, Pool: &enginelog.PoolFigures{Tokens: 1000}}
	o := observation.FromLog(l, m, observation.GPU{Name: cal.GPU, TotalMiB: 143155}, "0.11.0", "2026-11-30", "")
	ch, err := observation.Check(observation.Format(&o))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	const want = ` "settings": {
  "tensor_parallel": 2,
  "pipeline_parallel": 3,
  "max_len": 8192,
  "mem_fraction_static": 0.5,
  "max_num_seqs": 16,
  "max_num_batched_tokens": 2048,
  "enforce_eager": true,
  "flashinfer_sampler": true,
  "kv_cache_dtype": "fp8_e4m3",
  "model_runner_v2": true
 },
`
	if !strings.Contains(string(ch.Document), want) {
		t.Errorf("the canonical form is\n%s\nwant its settings block\n%s", ch.Document, want)
	}
	back := observation.Log(&ch.Observation)
	got := *back.Settings
	want2 := *st
	want2.Model, want2.Dtype, want2.Ranks, want2.V0, want2.GPUTotal, want2.Given = "", "", 0, false, 0, nil
	if !reflect.DeepEqual(got, want2) {
		t.Errorf("Log(FromLog(settings)) = %+v, want %+v", got, want2)
	}
}
