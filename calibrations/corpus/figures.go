package corpus

import (
	"fmt"
	"strconv"
	"strings"
)

// A figure is one number an engine printed at start-up. An entry quotes
// it rather than restating it: Figures maps a key to a piece of one line
// of the entry's log, the piece must hold one of the key's markers, and
// the figure is the last number in the piece ("Model loading took
// 14.9889 GiB" is 14.9889). So the log stays the one source of every
// figure, and a quote that is not in the log is an error.

// FigureKey names a figure.
type FigureKey string

// The figures, each in the unit its engine prints it in. vLLM's V0 "GB"
// and SGLang's "GB" are GiB: both divide by 2³⁰ (vllm/worker/
// model_runner.py, load_model: `self.model_memory_usage / float(2**30)`;
// sglang/srt/utils.py, get_available_gpu_memory: `/ (1 << 30)`).
const (
	// FigureWeights is the weights one rank loaded, GiB.
	FigureWeights FigureKey = "weights_gib"
	// FigureKVTokens is the KV cache's tokens (vLLM's GPU KV cache size,
	// SGLang's #tokens or max_total_num_tokens).
	FigureKVTokens FigureKey = "kv_tokens"
	// FigureGPUBlocks is vLLM's block count, used for the tokens when the
	// log prints no token count (blocks × block_size).
	FigureGPUBlocks FigureKey = "gpu_blocks"
	// FigureKVMemory is the memory vLLM gave its KV cache, GiB.
	FigureKVMemory FigureKey = "kv_gib"
	// FigureAvailBefore and FigureAvailAfter are SGLang's free memory
	// before and after loading the weights, GiB: their difference is the
	// weights when the log prints no "mem usage".
	FigureAvailBefore FigureKey = "avail_before_load_gib"
	FigureAvailAfter  FigureKey = "avail_after_load_gib"
	// FigureActivation and FigureNonTorch are vLLM's profiled activation
	// peak and memory outside torch, GiB; FigureGraphs its CUDA graphs'
	// memory, GiB (captured, or 0.21's estimate).
	FigureActivation FigureKey = "activation_gib"
	FigureNonTorch   FigureKey = "non_torch_gib"
	FigureGraphs     FigureKey = "graphs_gib"
)

// figure is one engine's rule for a key: the markers one of which its
// quote must hold, a marker's pieces ("Load weight end. …mem usage=") in
// that order.
type figure struct {
	key     FigureKey
	engine  string
	markers []string
	count   bool // a whole number
}

var figures = []figure{
	{FigureWeights, EngineVLLM, []string{"Model loading took ", "Loading model weights took ", "model weights take"}, false},
	{FigureWeights, EngineSGLang, []string{"Load weight end. …mem usage="}, false},
	{FigureKVTokens, EngineVLLM, []string{"GPU KV cache size: ", "maximum number of tokens that can be stored in KV cache ("}, true},
	{FigureKVTokens, EngineSGLang, []string{"KV Cache is allocated. #tokens: ", "KV Cache is allocated. dtype: …#tokens: ", "max_total_num_tokens="}, true},
	{FigureGPUBlocks, EngineVLLM, []string{"# GPU blocks: ", "# CUDA blocks: ", "num_gpu_blocks is: "}, true},
	{FigureKVMemory, EngineVLLM, []string{"Available KV cache memory: ", "available KV cache memory (", "kv_cache_size=",
		"available_kv_cache_memory", "the rest of the memory reserved for KV Cache is "}, false},
	{FigureAvailBefore, EngineSGLang, []string{"Load weight begin. avail mem="}, false},
	{FigureAvailAfter, EngineSGLang, []string{"Load weight end. …avail mem="}, false},
	{FigureActivation, EngineVLLM, []string{"PyTorch activation peak memory", "GiB for peak activation"}, false},
	{FigureNonTorch, EngineVLLM, []string{"non_torch_memory", "GiB for non-torch memory"}, false},
	{FigureGraphs, EngineVLLM, []string{"Graph capturing finished …took ", "Estimated CUDA graph memory: "}, false},
}

// figureOf returns engine's rule for k, nil when it has none.
func figureOf(engine string, k FigureKey) *figure {
	for i := range figures {
		if figures[i].key == k && figures[i].engine == engine {
			return &figures[i]
		}
	}
	return nil
}

// readFigures checks every quote against the log and reads its number.
func (e *Entry) readFigures() error {
	e.Values = make(map[FigureKey]float64, len(e.Figures))
	lines := strings.Split(e.Log, "\n")
	for k, q := range e.Figures {
		v, err := readFigure(e.Engine, k, q, lines)
		if err != nil {
			return &Error{Entry: e.ID, Field: "figures." + string(k), Msg: err.Error()}
		}
		e.Values[k] = v
	}
	return nil
}

func readFigure(engine string, k FigureKey, quote string, lines []string) (float64, error) {
	f := figureOf(engine, k)
	switch {
	case f == nil:
		return 0, fmt.Errorf("no such %s figure (want one of %s)", engine, figureKeys(engine))
	case !hasMarker(quote, f.markers):
		return 0, fmt.Errorf("%q holds none of %q", quote, f.markers)
	case !inOneLine(quote, lines):
		return 0, fmt.Errorf("%q is in no line of the log", quote)
	}
	v, ok := lastNumber(quote)
	switch {
	case !ok:
		return 0, fmt.Errorf("%q holds no number", quote)
	case f.count && (v < 0 || v != float64(int64(v))):
		return 0, fmt.Errorf("%q: %v is not a count", quote, v)
	}
	return v, nil
}

func figureKeys(engine string) string {
	var ks []string
	for i := range figures {
		if figures[i].engine == engine {
			ks = append(ks, string(figures[i].key))
		}
	}
	return strings.Join(ks, ", ")
}

// hasMarker reports whether s holds one of markers, each marker's pieces
// in order.
func hasMarker(s string, markers []string) bool {
	for _, m := range markers {
		rest, ok := s, true
		for _, piece := range strings.Split(m, "…") {
			i := strings.Index(rest, piece)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(piece):]
		}
		if ok {
			return true
		}
	}
	return false
}

func inOneLine(quote string, lines []string) bool {
	if quote == "" || strings.Contains(quote, "\n") {
		return false
	}
	for _, l := range lines {
		if strings.Contains(l, quote) {
			return true
		}
	}
	return false
}

// lastNumber reads the last number in s: digits with an optional sign,
// thousands separators and one decimal point ("-2.14", "2,640,144").
func lastNumber(s string) (float64, bool) {
	end := len(s)
	for end > 0 && !isDigit(s[end-1]) {
		end--
	}
	start := end
	for start > 0 && (isDigit(s[start-1]) || s[start-1] == ',' || s[start-1] == '.') {
		start--
	}
	for start < end && !isDigit(s[start]) { // a separator before the first digit is not the number's
		start++
	}
	if start == end {
		return 0, false
	}
	if start > 0 && s[start-1] == '-' {
		start--
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s[start:end], ",", ""), 64)
	return v, err == nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
