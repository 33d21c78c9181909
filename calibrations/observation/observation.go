// Package observation is the engine observation document: what one start-up
// of an inference engine allocated, as its log said (planner/enginelog),
// with exactly what is needed to plan the same configuration again — the
// engine and its version, the GPU (its normalized name and total memory),
// the model's shape, the memory-relevant settings and the measured figures
// per charge — and nothing else: no host names, paths, user names, device
// UUIDs or times finer than a day.
//
// Operators upload observations to the community store (POST
// /api/observations), and `vramplan engines refit` refits a profile's
// estimated constants from them. Check is the one validator: the CLI runs
// it before sending, the server on receiving, and the browser (the reader
// module's checkObservation) before the page offers to send. It is strict —
// unknown fields, doubled keys, numbers out of range and documents over
// MaxSize are refused, each with the field at fault — and it returns the
// canonical form, whose digest names the observation, and the reasons a
// consistent-looking upload is still held out of the refit.
package observation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// Schema is the tag of a document without settings: every llama.cpp
// observation, and a vLLM or SGLang one whose log stated nothing of its
// launch beyond its pool (one GPU, the pool's own request length).
const Schema = "vramplan.observation/v1"

// SchemaSettings is the tag of a document that carries Settings. A
// document's tag follows from what it holds — settings, v2; none, v1 —
// so one observation has one canonical form and one digest: a v1
// document is byte for byte what it was before settings were carried,
// and each version refuses what the other holds.
const SchemaSettings = "vramplan.observation/v2"

// MaxSize is the largest observation document accepted, in bytes.
const MaxSize = 64 << 10

// Observation is one engine start-up, as uploaded.
type Observation struct {
	Schema string             `json:"schema"`
	Engine planner.EngineName `json:"engine"` // llama.cpp, vllm or sglang
	// EngineVersion is the engine's release ("b12072", "0.11.0").
	EngineVersion string `json:"engine_version"`
	// Day is the UTC date of the run, YYYY-MM-DD: no finer time is kept.
	Day   string `json:"day"`
	GPU   GPU    `json:"gpu"`
	Model Model  `json:"model"`
	// LlamaCpp holds llama.cpp's context settings; it is required for
	// llama.cpp and refused for the other engines.
	LlamaCpp *LlamaCpp `json:"llama_cpp,omitempty"`
	// Pool holds what vLLM or SGLang said of its KV pool.
	Pool *Pool `json:"pool,omitempty"`
	// Settings holds the vLLM or SGLang launch settings its plan was made
	// under, as its log stated them or the check was given them; nil
	// (every v1 document) means what it meant before they were carried:
	// one GPU, the request length of the pool's concurrency line (else the
	// model's trained context), the profile's defaults for the rest.
	Settings *Settings `json:"settings,omitempty"`
	// Figures are the charges the engine reported, one per key.
	Figures []Figure `json:"figures"`
}

// GPU is the device an observation ran on.
type GPU struct {
	// Name is the device name CUDA reports ("NVIDIA H200").
	Name string `json:"name"`
	// TotalMiB is the device's total memory as CUDA reports it
	// (cuMemGetInfo; llama.cpp's "Total VRAM" line), in MiB.
	TotalMiB int64 `json:"total_mib"`
}

// Model is the model an observation ran: its shape, which is what planning
// it again needs, and the catalog id when it is a catalog model. The
// shape's id and source (a file name, a path) are not kept.
type Model struct {
	Catalog string        `json:"catalog,omitempty"`
	Shape   planner.Model `json:"shape"`
}

// LlamaCpp are the context settings a llama.cpp log states.
type LlamaCpp struct {
	NCtx      int    `json:"n_ctx"`
	NSeqMax   int    `json:"n_seq_max"`
	NUbatch   int    `json:"n_ubatch"`
	FlashAttn bool   `json:"flash_attn"`
	Unified   bool   `json:"kv_unified"`
	SWAFull   bool   `json:"swa_full"`
	TypeK     string `json:"type_k"`
	TypeV     string `json:"type_v"`
	// GPULayers of Layers were offloaded ("offloaded N/M layers to GPU");
	// both 0 when the log does not say, which means all of them.
	GPULayers int `json:"gpu_layers"`
	Layers    int `json:"layers"`
}

// Pool is what vLLM or SGLang said of its KV pool.
type Pool struct {
	Tokens         int64   `json:"tokens"`
	MaxConcurrency float64 `json:"max_concurrency,omitempty"`
	ConcurrencyLen int     `json:"concurrency_len,omitempty"`
	Utilization    float64 `json:"gpu_memory_utilization,omitempty"`
}

// Settings are the launch settings of a vLLM or SGLang start-up that its
// plan reads, as planner/enginelog reads them from a log: one list of
// fields, whose order and JSON names are the document's. A zero field is
// one neither the log stated nor the check was given. TensorParallel and
// PipelineParallel are the parallel sizes the plan used: those stated or
// given, else as many tensor-parallel ranks as the log's lines name.
type Settings = enginelog.Launch

// Figure is one measured charge.
type Figure struct {
	// Key is the charge: weights, kv, compute_buffer, activation_peak,
	// non_torch (as planner/enginelog names them), or device_used, the
	// device's memory in use after the first decode (nvidia-smi's
	// memory.used), which no log prints.
	Key   string `json:"key"`
	Bytes int64  `json:"bytes"`
	// Resolution is half the unit the figure was printed in: a residual
	// inside it is no difference. 0 means exact.
	Resolution int64 `json:"resolution_bytes"`
}

// Checked is an observation that passed Check.
type Checked struct {
	Observation Observation
	// Document is the canonical encoding (Format) and Digest its hex
	// SHA-256; ID, the observation's name in the API, is derived from it.
	Document []byte
	Digest   string
	ID       string
	// ModelDigest is the hex SHA-256 of the canonical model shape: equal
	// shapes, equal digests, whatever the file was called.
	ModelDigest string
}

// Check decodes and checks one observation document.
func Check(data []byte) (Checked, error) {
	var ch Checked
	if len(data) > MaxSize {
		return ch, reject("", "the document is %d bytes, more than %d", len(data), MaxSize)
	}
	o, err := decode(data)
	if err != nil {
		return ch, err
	}
	if rs := validate(&o); len(rs) > 0 {
		return ch, &community.Rejection{Reasons: rs}
	}
	return checked(o), nil
}

// checked canonicalizes a valid observation and names it.
func checked(o Observation) Checked {
	o.Model.Shape.ID, o.Model.Shape.Source = "", ""
	o.GPU.Name = canonicalGPU(o.GPU.Name)
	ch := Checked{Observation: o, Document: Format(&o)}
	sum := sha256.Sum256(ch.Document)
	ch.Digest = hex.EncodeToString(sum[:])
	ch.ID = ch.Digest[:20]
	shape, _ := json.Marshal(&o.Model.Shape) // a decoded model always marshals
	ms := sha256.Sum256(shape)
	ch.ModelDigest = hex.EncodeToString(ms[:])
	return ch
}

// Format returns o's canonical encoding: its fields in schema order,
// indented by one space, ending in a newline.
func Format(o *Observation) []byte {
	b, _ := json.MarshalIndent(o, "", " ") // every field is plain data
	return append(b, '\n')
}

// decode reads data strictly: one JSON object, no unknown field, no key
// twice (compared without regard to case, as encoding/json matches them),
// numbers of the right kind.
func decode(data []byte) (Observation, error) {
	var raw struct {
		Observation
		Model struct {
			Catalog string          `json:"catalog,omitempty"`
			Shape   json.RawMessage `json:"shape"`
		} `json:"model"`
	}
	if err := strict(data, &raw); err != nil {
		return Observation{}, &community.Rejection{Reasons: []community.Reason{reason(err)}}
	}
	if k, dup := planner.DuplicateKey(bytes.ToLower(data)); dup {
		return Observation{}, reject(k, "appears twice in one object (keys match without regard to case)")
	}
	o := raw.Observation
	o.Model.Catalog = raw.Model.Catalog
	if len(raw.Model.Shape) == 0 || string(raw.Model.Shape) == "null" {
		return o, reject("model.shape", "missing: an observation carries the model's shape, so it can be planned again")
	}
	m, err := planner.ParseModel(raw.Model.Shape)
	if err != nil {
		return o, reject("model.shape", "%s", strings.TrimPrefix(err.Error(), "planner: "))
	}
	o.Model.Shape = m
	return o, nil
}

func strict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("data after the observation object")
	}
	return nil
}

func reject(field, format string, args ...any) *community.Rejection {
	return &community.Rejection{Reasons: []community.Reason{{Field: field, Msg: fmt.Sprintf(format, args...)}}}
}

// reason turns a decoding error into a refusal naming its field.
func reason(err error) community.Reason {
	var typ *json.UnmarshalTypeError
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		typ = e
	}
	if typ != nil && typ.Field != "" {
		return community.Reason{Field: strings.TrimPrefix(typ.Field, "Observation."), Msg: fmt.Sprintf("%s is not a %s", typ.Value, kind(typ.Type.String()))}
	}
	msg := err.Error()
	if _, f, ok := strings.Cut(msg, `unknown field "`); ok {
		f, _, _ = strings.Cut(f, `"`)
		return community.Reason{Field: f, Msg: "unknown field: the observation schema has no such field"}
	}
	return community.Reason{Msg: strings.TrimPrefix(msg, "json: ")}
}

func kind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"):
		return "whole number in range"
	case strings.HasPrefix(goType, "float"):
		return "number"
	case goType == "bool":
		return "boolean"
	case goType == "string" || strings.HasSuffix(goType, "Name"):
		return "string"
	case strings.HasPrefix(goType, "[]"):
		return "list"
	}
	return "object"
}
