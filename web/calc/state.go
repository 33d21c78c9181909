// Package calc is the calculator's pure logic, shared by the server that
// renders a page and the WebAssembly bridge that re-plans it in the
// browser: the state a URL carries, applying that state to a planner
// input, and the view of a plan that both sides paint.
//
// It imports the planner and the standard library only, so one
// implementation serves both sides and the numbers they show agree.
package calc

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// State is what the calculator's URL holds: the model and calibration by
// id, and every slider. A zero field is the planner's default, as a flag
// of `vramplan plan` left out is, except Len, which the CLI requires and
// the page defaults to DefaultLen.
type State struct {
	Model string `json:"model"`
	GPU   string `json:"gpu"`
	// Batch is limits.max_batch; 0, the default, is the planner's: as
	// many sequences as fit, or under an engine that engine's own default
	// (vLLM's max_num_seqs, llama-server's -np auto), as the CLI plans
	// --max-batch left out.
	Batch   int                 `json:"batch"`
	Len     int                 `json:"len"`
	KV      planner.KVDtype     `json:"kv,omitempty"`
	Block   int                 `json:"block,omitempty"`
	Prefill int                 `json:"prefill,omitempty"`
	Cache   planner.WeightCache `json:"cache,omitempty"`
	Vision  bool                `json:"vision,omitempty"`
	Spec    int                 `json:"spec,omitempty"`
	Graphs  bool                `json:"graphs,omitempty"`
	Budget  planner.Bytes       `json:"budget,omitempty"` // 0 means the device total
	// Engine is the engine profile the plan follows; "" is vramplan's own.
	Engine planner.EngineName `json:"engine,omitempty"`
	// Version is the engine's release whose rules the plan follows
	// (serving.version), planned under an engine; "" is its newest range.
	Version string `json:"version,omitempty"`
	// TP, PP, EP and DP are the parallel layout's sizes (layout.go); 0 is 1.
	TP int `json:"tp,omitempty"`
	PP int `json:"pp,omitempty"`
	EP int `json:"ep,omitempty"`
	DP int `json:"dp,omitempty"`
	// TS is llama.cpp's tensor split, one share per GPU written with ','
	// ("3,1"), planned under llama.cpp with more than one GPU (split.go);
	// "" is equal shares.
	TS string `json:"ts,omitempty"`
	// NGL is llama.cpp's -ngl, the layers on the GPUs with the output
	// layer first, planned under llama.cpp (offload.go); 0 is every layer.
	NGL int `json:"ngl,omitempty"`
	// GSort, GMin and GLabel are the Which-GPUs table's order (a GPUSorts
	// key), least memory in GiB and label (gpus.go); zero shows every GPU
	// in the planner's order.
	GSort  string `json:"gsort,omitempty"`
	GMin   int    `json:"gmin,omitempty"`
	GLabel string `json:"glabel,omitempty"`
}

// DefaultLen is the length of a state that names none, in tokens.
const DefaultLen = 4096

// FieldError reports a query parameter that cannot be read.
type FieldError struct {
	Key string // the query key, e.g. "len"
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

// ParseQuery reads a state from a URL query, with or without its leading
// '?'. Missing keys take their defaults; unknown keys are ignored so that
// links survive additions; a malformed value is a *FieldError naming its key.
func ParseQuery(query string) (State, error) {
	q, err := parseValues(query)
	if err != nil {
		return State{Len: DefaultLen}, err
	}
	s := State{Model: q.get("model"), GPU: q.get("gpu"), Len: DefaultLen, Version: strings.TrimSpace(q.get("version")),
		KV: planner.KVDtype(strings.ToLower(q.get("kv"))), Cache: planner.WeightCache(strings.ToLower(q.get("cache")))}
	ints := []struct {
		key string
		dst *int
	}{{"batch", &s.Batch}, {"len", &s.Len}, {"block", &s.Block}, {"prefill", &s.Prefill}, {"spec", &s.Spec}}
	for _, f := range ints {
		if err := parseInt(q, f.key, f.dst); err != nil {
			return s, err
		}
	}
	if err := parseEngine(q, &s.Engine); err != nil {
		return s, err
	}
	if err := parseLayout(q, &s); err != nil {
		return s, err
	}
	if err := parseSplitMode(q, &s); err != nil {
		return s, err
	}
	if err := parseSplit(q, &s); err != nil {
		return s, err
	}
	if err := parseOffload(q, &s); err != nil {
		return s, err
	}
	if err := parseGPUFilter(q, &s); err != nil {
		return s, err
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"vision", &s.Vision}, {"graphs", &s.Graphs}} {
		if err := parseBool(q, f.key, f.dst); err != nil {
			return s, err
		}
	}
	return s, parseBudget(q, &s.Budget)
}

func parseInt(q values, key string, dst *int) error {
	v := q.get(key)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return &FieldError{key, printf.Sprintf("%q is not a whole number", v)}
	}
	*dst = n
	return nil
}

func parseBool(q values, key string, dst *bool) error {
	switch v := q.get(key); v {
	case "":
	case "1", "on", "true":
		*dst = true
	case "0", "off", "false":
		*dst = false
	default:
		return &FieldError{key, printf.Sprintf("%q is not on or off", v)}
	}
	return nil
}

// parseEngine reads the engine profile; vramplan's own is left empty.
func parseEngine(q values, dst *planner.EngineName) error {
	e := planner.EngineName(strings.ToLower(q.get("engine")))
	if !e.Valid() {
		return &FieldError{"engine", printf.Sprintf("unknown engine %q (want one of %v)", q.get("engine"), planner.Engines[1:])}
	}
	if e != planner.EngineSeed {
		*dst = e
	}
	return nil
}

// parseBudget reads the budget: a bare number is MiB, as the slider sends
// it and the page prints it ("32,607"); a number with a unit ("30GiB",
// "24 GB", "32e9b") is read as the CLI reads it.
func parseBudget(q values, dst *planner.Bytes) error {
	v := strings.TrimSpace(q.get("budget"))
	if v == "" {
		return nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < 1<<40 {
		*dst = planner.Bytes(n) * planner.MiB
		return nil
	}
	sized := v
	if strings.Trim(v, "0123456789,.") == "" {
		sized += " MiB"
	}
	b, err := planner.ParseBytes(sized)
	if err != nil {
		if _, raw := planner.ParseBytes(v); raw != nil {
			err = raw // its message quotes what was typed
		}
		return &FieldError{"budget", err.Error()}
	}
	*dst = b
	return nil
}

// Encode returns s as a query string without the leading '?': its keys in
// a fixed order, the fields at their defaults left out, so equal states
// give equal URLs.
func (s State) Encode() string {
	var b strings.Builder
	set := func(k, v string, skip bool) {
		if skip {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k + "=" + escape(v))
	}
	set("model", s.Model, s.Model == "")
	set("gpu", s.GPU, s.GPU == "")
	set("engine", string(s.Engine), s.Engine == "" || s.Engine == planner.EngineSeed)
	set("version", s.Version, s.Version == "")
	set("batch", strconv.Itoa(s.Batch), false)
	set("len", strconv.Itoa(s.Len), false)
	set("kv", string(s.KV), s.KV == "" || s.KV == planner.KVDtypeF16)
	set("block", strconv.Itoa(s.Block), s.Block == 0 || s.Block == 16)
	set("prefill", strconv.Itoa(s.Prefill), s.Prefill == 0)
	set("cache", string(s.Cache), s.Cache == "" || s.Cache == planner.WeightCacheNone)
	set("vision", "1", !s.Vision)
	set("spec", strconv.Itoa(s.Spec), s.Spec == 0)
	set("graphs", "1", !s.Graphs)
	set("budget", BudgetText(s.Budget), s.Budget == 0)
	s.encodeLayout(set)
	set("ngl", strconv.Itoa(s.NGL), s.NGL == 0)
	set("gsort", s.GSort, s.GSort == "" || s.GSort == DefaultGPUSort)
	set("gmin", strconv.Itoa(s.GMin), s.GMin == 0)
	set("glabel", s.GLabel, s.GLabel == "")
	return b.String()
}

// BudgetText writes a budget as the URL and the budget field hold it: whole
// MiB as a bare number, as the slider sends it; a decimal size in its
// largest decimal unit ("24GB"), as it was most likely typed; else bytes.
func BudgetText(b planner.Bytes) string {
	if b%planner.MiB == 0 {
		return strconv.FormatInt(int64(b/planner.MiB), 10)
	}
	if n, unit := decimalUnit(b); unit != "" {
		return strconv.FormatInt(n, 10) + unit
	}
	return strconv.FormatInt(int64(b), 10) + "b"
}

// Apply sets the limits, features and budget of in from s. The model and
// the calibration are resolved by the caller, from its catalog.
func (s State) Apply(in *planner.Input) {
	in.Limits = planner.Limits{MaxBatch: s.Batch, MaxSeqLen: s.Len, KVDtype: s.KV,
		BlockTokens: s.Block, MaxPrefillTokens: s.Prefill}
	in.Features = planner.Features{WeightCache: s.Cache, Vision: s.Vision, SpecDecodeK: s.Spec,
		CUDAGraphs: s.Graphs}
	in.Budget = s.Budget
	in.Parallel = s.parallel()
	in.Parallel.TensorSplit = s.tensorSplit()
	if e := s.Engine; e != "" && e != planner.EngineSeed {
		// The engines have none of the seed's features: the page keeps
		// their controls but plans without them.
		in.Serving = planner.Serving{Engine: e, Version: s.Version}
		in.Serving.LlamaCpp.GPULayers = s.gpuLayers()
		in.Features = planner.Features{Vision: s.Vision}
		if !offers(e, in.Limits.KVDtype) {
			in.Limits.KVDtype = "" // the engine's 16-bit default; the view says so
		}
	}
}

// BlockShown reports whether the page shows the tokens-per-block field:
// not under an engine whose KV cells are one token each (llama.cpp).
func (s State) BlockShown() bool {
	p := s.Engine.Profile()
	return p == nil || !p.Cells()
}

// Fields says which of the page's engine-dependent fields the state plans.
type Fields struct {
	TS    bool `json:"ts"`    // llama.cpp's tensor split (SplitShown)
	NGL   bool `json:"ngl"`   // llama.cpp's -ngl (OffloadShown)
	Block bool `json:"block"` // tokens per block (BlockShown)
}

func (s State) fields() Fields {
	return Fields{TS: s.SplitShown(), NGL: s.OffloadShown(), Block: s.BlockShown()}
}

// offers reports whether engine e stores a KV cache as d.
func offers(e planner.EngineName, d planner.KVDtype) bool {
	if d == "" {
		return true
	}
	for _, x := range e.KVDtypes() {
		if x == d {
			return true
		}
	}
	return false
}

// WithLever returns s changed as lever l says. It reports false for a
// lever on a knob the state does not hold.
func (s State) WithLever(l planner.Lever) (State, bool) {
	n, _ := strconv.ParseInt(l.To, 10, 64)
	switch l.Knob {
	case planner.KnobMaxSeqLen:
		s.Len = int(n)
	case planner.KnobMaxBatch:
		s.Batch = int(n)
	case planner.KnobKVDtype:
		s.KV = planner.KVDtype(l.To)
	case planner.KnobWeightCache:
		s.Cache = planner.WeightCache(l.To)
	case planner.KnobVision:
		s.Vision = false
	case planner.KnobSpecDecodeK:
		s.Spec = int(n)
	case planner.KnobCUDAGraphs:
		s.Graphs = false
	case planner.KnobBlockTokens:
		s.Block = int(n)
	case planner.KnobPrefillTokens:
		s.Prefill = int(n)
	case planner.KnobBudget:
		s.Budget = planner.Bytes(n)
	default:
		return s.withLayoutLever(l)
	}
	return s, true
}
